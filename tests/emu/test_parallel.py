"""The fast build runs a large launch's blocks on several worker threads (one
per available CPU). What a learner sees must be the sequential run's: results
of cross-block atomics, printf output in block order, the fault of the lowest
faulting block with its line, and a memory fault of the lowest block.
On a one-CPU machine these run the sequential path and still hold."""

import os
from pathlib import Path

import numpy as np
import pytest

from kernels.emu.process import Crash, ProgramProcess
from kernels.emu.protocol import ARG_BUFFER, ARG_INT, WireBuffer, WireLaunch, encode_request, int_bits
from tests.emu.harness import GUARD, compile_source, launch

BLOCKS, THREADS = 512, 128  # 65 536 threads: far above the parallel threshold (4 096)

ATOMICS = r'''
extern "C" __global__ void k(int* counts, unsigned* u, float* f, unsigned long long* big, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&counts[0], 1);
    atomicSub(&counts[1], 2);
    atomicMax(&counts[2], i);
    atomicMin(&counts[3], -i);
    atomicInc(&u[0], 0xffffffffu);
    atomicOr(&u[1], 1u << (blockIdx.x % 32));
    atomicXor(&u[2], (unsigned)i);
    atomicAdd(&f[0], 1.0f);
    atomicAdd(big, (unsigned long long)i);
    // A lock-free counter built on atomicCAS, contended by every block.
    unsigned old = u[3], seen;
    do { seen = old; old = atomicCAS(&u[3], seen, seen + 2u); } while (old != seen);
    // Blocks announce themselves; the last one to arrive (an atomicInc ticket) writes the count.
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        unsigned ticket = atomicInc(&u[4], 0xffffffffu);
        if (ticket == gridDim.x - 1) counts[4] = (int)(ticket + 1);
    }
}
'''


def test_cross_block_atomics_give_the_exact_results():
    n = BLOCKS * THREADS
    counts = np.array([0, 0, -1, 1, 0], np.int32)
    u = np.zeros(5, np.uint32)
    for _ in range(3):
        got = launch(ATOMICS, "k", BLOCKS, THREADS, [counts, u, np.zeros(1, np.float32), np.zeros(1, np.uint64), n])
        assert got.fault is None and not got.diagnostics, got.diagnostics
        c, uu, f, big = got.arrays
        assert list(c) == [n, -2 * n, n - 1, -(n - 1), BLOCKS]
        assert uu[0] == n and uu[1] == 0xffffffff and uu[3] == 2 * n and uu[4] == BLOCKS
        assert uu[2] == np.bitwise_xor.reduce(np.arange(n, dtype=np.uint32))
        assert f[0] == float(n) and int(big[0]) == n * (n - 1) // 2


STATIC_SHARED = r'''
extern "C" __global__ void k(const int* in, int* out, int n) {
    __shared__ int tile[128];
    __shared__ int total;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) total = 0;
    tile[threadIdx.x] = in[i];
    __syncthreads();
    atomicAdd(&total, tile[blockDim.x - 1 - threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}
'''


def test_static_shared_memory_is_per_block_with_blocks_in_parallel():
    x = np.random.default_rng(1).integers(-1000, 1000, BLOCKS * THREADS, dtype=np.int32)
    for _ in range(3):
        got = launch(STATIC_SHARED, "k", BLOCKS, THREADS, [x, np.zeros(BLOCKS, np.int32), x.size])
        assert got.fault is None and not got.diagnostics, got.diagnostics
        assert list(got.arrays[1]) == list(x.reshape(BLOCKS, THREADS).sum(axis=1))


PRINTF = r'''
extern "C" __global__ void k(int* out, int n) {
    if (threadIdx.x % 32 == 0) printf("block %d warp %d\n", blockIdx.x, threadIdx.x / 32);
}
'''


@pytest.mark.parametrize("blocks", [64, BLOCKS, 4096])
def test_printf_output_comes_in_block_order(blocks):
    # 64 blocks: everything fits; 512 and 4096: far past the 16 KiB cap, which
    # must keep the *first* 16 KiB, as when blocks run one after another.
    lines = "".join(f"block {b} warp {w}\n" for b in range(blocks) for w in range(THREADS // 32))
    expected = lines if len(lines) <= 16 * 1024 else lines[:16 * 1024] + "\n[output truncated]\n"
    for variant in ("fast", "check"):
        got = launch(PRINTF, "k", blocks, THREADS, [np.zeros(1, np.int32), 0], variant=variant)
        assert got.fault is None
        assert got.output == expected, variant


TRAPS = r'''
extern "C" __global__ void k(int* out, int n) {
    out[blockIdx.x] = 1;
    if (threadIdx.x == 5 && (blockIdx.x == n || blockIdx.x == n + 300)) printf("trap in %d\n", blockIdx.x);
    if (threadIdx.x == 5 && blockIdx.x == n + 300)
        __trap();
    if (threadIdx.x == 7 && blockIdx.x == n)
        assert(blockIdx.x < 0);
}
'''


@pytest.mark.parametrize("first", [3, 200, BLOCKS - 301])
def test_the_fault_of_the_lowest_block_is_reported_with_its_line(first):
    for _ in range(3):
        got = launch(TRAPS, "k", BLOCKS, THREADS, [np.zeros(BLOCKS, np.int32), first])
        assert got.fault == "trap"
        assert got.fault_message == f"device-side assert failed: blockIdx.x < 0 in thread (7,0,0) of block ({first},0,0)"
        assert [d.line for d in got.diagnostics if d.kind == "trap"] == [8]
        # The output stops where the sequential run would have stopped.
        assert got.output == f"trap in {first}\n"


def test_a_late_trap_is_reported_with_its_line():
    got = launch(TRAPS, "k", BLOCKS, THREADS, [np.zeros(BLOCKS, np.int32), BLOCKS - 1])
    assert got.fault == "trap" and f"of block ({BLOCKS - 1},0,0)" in got.fault_message
    assert [d.line for d in got.diagnostics if d.kind == "trap"] == [8]
    assert (got.arrays[0][:BLOCKS - 1] == 1).all()


SEGV = r'''
extern "C" __global__ void k(const float* in, float* out, int n) {
    const float* p = reinterpret_cast<const float*>((size_t)(n & 1));
    if (threadIdx.x == 3 && (blockIdx.x == n / 2 || blockIdx.x == n / 2 + 400)) out[blockIdx.x] = p[blockIdx.x];
    if (threadIdx.x == 0) out[blockIdx.x] += in[blockIdx.x];
    if (n & 1 && blockIdx.x == 2 && threadIdx.x == 9) __trap();
}
'''


def _request(n: int) -> bytes:
    wire = []
    for size in (BLOCKS, BLOCKS):
        full = np.zeros(size + 2 * GUARD, np.float32)
        wire.append(WireBuffer(f"b{len(wire)}", full.tobytes(), GUARD * 4, size * 4, 4))
    args = ((ARG_BUFFER, 0), (ARG_BUFFER, 1), (ARG_INT, int_bits(n)))
    return encode_request(wire, [WireLaunch("k", (BLOCKS, 1, 1), (THREADS, 1, 1), 0, args)], False)


@pytest.mark.parametrize("block", [1, 60, 100])
def test_a_memory_fault_of_the_lowest_block_ends_the_run(block):
    # Blocks `block` and `block` + 400 both read a null pointer; the report
    # must be the lower one's (its address is 4 * block).
    program = compile_source(SEGV, ("k",)).programs["fast"]
    for _ in range(3):
        proc = ProgramProcess(program, 10)
        try:
            got = proc.call(_request(2 * block), 10.0)
        finally:
            proc.kill()
        assert isinstance(got, Crash) and got.memory is not None, got
        assert got.memory["addr"] == 4 * block and got.memory["kernel"] == 1


def test_a_scheduler_fault_below_a_memory_fault_wins_and_the_program_goes_on():
    # n = 2 * 100 + 1: blocks 100 and 500 read address 4 * block (odd n adds 1
    # byte), and block 2 traps first in block order: the result is the trap,
    # and the program keeps answering (without the worker that stays parked
    # in the memory fault's handler, if one did).
    program = compile_source(SEGV, ("k",)).programs["fast"]
    proc = ProgramProcess(program, 10)
    try:
        for _ in range(3):
            got = proc.call(_request(2 * 100 + 1), 10.0)
            assert not isinstance(got, Crash), got
            assert got.fault_name == "trap" and "of block (2,0,0)" in got.fault_message
        clean = proc.call(_request(2 * 100 + 1 - 1 + 2 * 1000), 10.0)  # no block reads the null pointer
        assert not isinstance(clean, Crash) and clean.fault_name is None
    finally:
        proc.kill()


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: no worker threads")
def test_worker_threads_exist_only_in_the_fast_build():
    built = compile_source(PRINTF, ("k",))
    for variant, expect_threads in (("fast", True), ("check", False)):
        proc = ProgramProcess(built.programs[variant], 10)
        try:
            got = proc.call(encode_request([WireBuffer("b0", bytes(4 * (1 + 2 * GUARD)), GUARD * 4, 4, 4)],
                                           [WireLaunch("k", (1, 1, 1), (1, 1, 1), 0,
                                                       ((ARG_BUFFER, 0), (ARG_INT, int_bits(0))))], False), 10.0)
            assert not isinstance(got, Crash)
            pids, todo = [], [proc.proc.pid]  # the program, or bubblewrap and its children
            while todo:
                pid = todo.pop()
                pids.append(pid)
                for task in os.listdir(f"/proc/{pid}/task"):
                    todo += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
            threads = max(len(os.listdir(f"/proc/{pid}/task")) for pid in pids)
            assert (threads > 1) == expect_threads, (variant, threads)
        finally:
            proc.kill()
