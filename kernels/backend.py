"""Deprecated: the target types moved to `kernels.targets.base` (#29). This re-export
keeps code written against the old path importing until it moves; new code imports
`kernels.targets.base`."""

from kernels.targets.base import *  # noqa: F401,F403
from kernels.targets.base import GUARD_ELEMS, TargetUnavailable  # noqa: F401
