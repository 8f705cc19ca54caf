"""The profiler's emulator tests need g++ and Boost.Context (./dev installs both)."""

import pytest

from kernels.emu.build import toolchain_ok

if not toolchain_ok():  # pragma: no cover - CI installs the toolchain
    pytest.skip("the emulator needs g++ and libboost-context-dev", allow_module_level=True)
