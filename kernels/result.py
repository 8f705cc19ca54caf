"""Deprecated: the result document moved to `kernels.contract` (#29), with the stream's
events. This re-export keeps code written against the old path importing until it
moves; new code imports `kernels.contract`."""

from kernels.contract import *  # noqa: F401,F403
from kernels.contract import MESSAGE_CODES, Message, code_fields  # noqa: F401
