"""The `emu` backend: CUDA C kernels on the CPU (see docs/emulator.md)."""
