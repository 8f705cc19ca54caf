"""The profiler (#16, #26): what an accepted attempt's kernels did, and why they are as
fast as they are. Modules, each importing only those listed before it:

    model.py     the GPU cards (h100.json: the lessons' H100 timings), the emulator's
                 estimated time, occupancy and the roofline
    doc.py       the `profile` object of the result document: build, validate, render
    findings.py  what the metrics say, as coded messages with the lesson that teaches the fix
    emu.py       the emulator's counts (its profiler program's answer) as metrics
    gpu.py       Nsight Compute (ncu) on a GPU, in a child process of its own
    run.py       the judge's entry: whether to profile here, and the profile of an attempt

The judge (kernels/pipeline.py, kernels/judge.py) imports `run` only; the result
document's validator imports `doc`. tests/test_import_graph.py keeps the order.
"""
