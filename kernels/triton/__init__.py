"""The Triton language (#29): compiling a learner's `*.triton.py` in a sandbox, and running it
on a GPU (cubins) or on the CPU (Triton's interpreter, kernels/triton/interp*.py)."""
