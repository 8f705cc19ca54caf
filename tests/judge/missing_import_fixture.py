"""A module of ours whose import fails: kernels.languages.part must not call that unavailable."""

import kernels.no_such_module_of_ours  # noqa: F401
