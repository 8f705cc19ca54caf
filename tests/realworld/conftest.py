"""Real-world CUDA (#12): kernels in the public styles learners paste.

The emulator's tests need g++ and Boost.Context (./dev installs both); the
gpu-marked tests need only a GPU, so the toolchain is asked per test."""

import pytest

from kernels.emu.build import toolchain_ok


@pytest.fixture
def emu():
    if not toolchain_ok():  # pragma: no cover - CI installs the toolchain
        pytest.skip("the emulator needs g++ and libboost-context-dev")
    from kernels.emu.target import EmuTarget

    return EmuTarget()
