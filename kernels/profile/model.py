"""The emulator's estimated time and the roofline coordinates (#16).

The emulator counts what a kernel does (kernels/profile/emu.py) but cannot
time it. From those counts and a small model of a reference GPU this module
gives an ESTIMATE of the kernel's time on that GPU at the exercise's largest
benchmark size, always labelled "estimate", with the model's measured
accuracy beside it (MEASURED_ACCURACY, from bench/profile_agreement.py on an
H100; docs/benchmarks.md "Profiling (#16)").

The model, per launch (a roofline with a few more ceilings):

    time = launch overhead + max(max(dram, l2, shared, issue) / parallelism,
                                 atomics, blocks, latency)

* dram: the distinct 32-byte global sectors the launch touches (every sector
  read, every sector written: what DRAM must move at least once), plus the
  rereads L2 no longer holds (below), ÷ the GPU's copy bandwidth;
* latency: the load requests each resident warp makes one after another ×
  LOAD_LATENCY_S (Little's law: narrow loads keep too few bytes in flight),
  times the share of requested sectors never loaded before at the benchmark
  size (the rest hit in L1), or each request in its own share if fewer; or, if
  longer, each resident block's serial chain, its busiest thread's: a latency
  per round of loads that brings a new sector (loads issued before a store or
  a barrier are in flight together; #26), and each warp collective and barrier;
* l2: every sector requested by a warp-wide load or store (uncoalesced
  accesses request many; a load's repeats partly hit in L1, a store's never do:
  L1 writes through, though a thread's stores into the sector it stored to just
  before are combined) ÷ the L2 bandwidth;
* shared: shared-memory wavefronts (bank conflicts add some) ÷ one wavefront
  per SM per clock;
* issue: warp instructions ÷ 4 per SM per clock. The emulator sees only memory
  instructions, so they are multiplied by INSTRUCTIONS_PER_MEMORY_INSTRUCTION;
* atomics: the most atomics on one global address ÷ the rate one address takes
  them (they serialise at L2); scaled with the launch's threads where the
  counted case had at most one per thread (one per block or warp: a fixed
  grid's stay as they are), else with the work;
* parallelism: resident warps at the benchmark size ÷ the warps a GPU needs
  in flight to reach those ceilings (WARPS_TO_SATURATE per SM), at most 1.

The launches' times add up; where the exercise has a flop model the total is at
least flops ÷ the FP32 (or, for a source using tensor cores, FP16 tensor) peak.

Rereads (#26). A sector loaded again (the same bytes: requests beyond the
ideal ones, which are rereads of a sector's other bytes, are not counted) is an
L2 hit while L2 still holds it. A block that rereads its own data (a row read
in two or three passes) has touched its whole footprint (distinct sectors
loaded and stored ÷ blocks) before it comes back, and so has every other block
resident beside it: when resident blocks × that footprint exceeds the L2 size,
the rereads come from DRAM. Rereads of buffers small enough to stay in L2
together (a LayerNorm's weight and bias, a sparse product's vector) are read by every
block and stay there: up to each of those buffers once per block, rereads are
taken to be of them and stay hits.

Scaling. The emulator counts a sample of a benchmark case's blocks, scaled to
its grid (kernels/profile/run.py, #26), or, where it cannot, one small test
case; the counts are multiplied by `scale` = the exercise's byte model at the
largest benchmark case ÷ at the counted case (1 when that is the one counted;
the flop model where there is no byte model; the launched threads where there
is neither). Grid and occupancy are those of the largest benchmark case (the
launch plan is evaluated there), so parallelism is the big case's. Scaled by
bytes, a launch grows at most as far as its own buffers (launch_scale, #26): its
distinct loads cannot outgrow the buffers it takes, nor its distinct stores the
ones it may write, so a scan over a fixed-size table of per-block counts grows
with the blocks, not with the keys.

Kept to numbers and the spec: nothing here runs learner code.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from kernels import settings


@dataclass(frozen=True)
class GpuModel:
    """A reference GPU for the estimate and the roofline's ceilings."""

    name: str
    sms: int
    clock_hz: float          # SM clock while running (boost)
    dram_bps: float          # bytes/s a device-to-device copy reaches (read + written)
    l2_bps: float            # bytes/s L1 ← L2
    fp32_flops: float        # FLOP/s, FMA counted as 2
    tensor_flops: float | None  # FP16 tensor FLOP/s, dense
    launch_s: float          # one launch, timed with CUDA events, doing nothing
    atomic_same_address_s: float  # one atomic on an address others are also updating
    source: str              # where the numbers come from
    block_s: float = 0.0     # an SM starting one block (of any size), back to back: blocks ÷ SMs × this
    l2_bytes: int = 0        # L2 cache size
    smem_per_sm: int = 0     # shared memory per SM, bytes
    # resident threads per SM (CUDA C++ Programming Guide, compute capabilities table: 2048 on
    # 8.0 and 9.0, 1536 on 8.9); the occupancy's table has the same (kernels/profile/doc.py)
    max_threads_per_sm: int = 2048


# H100: copy bandwidth measured (docs/benchmarks.md: 3007 GB/s, 1 GiB copy); SMs, clock and peaks
# from NVIDIA's H100 SXM5 specifications (132 SMs, 1.98 GHz boost), the 50 MB L2 and 228 KB of
# shared memory per SM from the NVIDIA Hopper architecture whitepaper. The other cards (#26) are
# published figures only, each cited where it is set: copy bandwidth = 90% of the quoted DRAM
# bandwidth (the H100's measured copy is 3.0 of 3.35 TB/s); the L2 bandwidth (not published) the
# H100's scaled by SMs x clock; one address's atomic and a block start the H100's measured ones
# scaled by its clock over the card's. Tensor peaks are dense FP16 with FP32 accumulate.
_H100_SM_HZ = 132 * 1.98e9


def _scaled(sms: int, clock_hz: float) -> dict[str, float]:
    """The terms no sheet publishes, scaled from the H100's by SMs x clock (L2) and clock."""
    return {"l2_bps": 7.0e12 * sms * clock_hz / _H100_SM_HZ, "atomic_same_address_s": 1.77e-9 * 1.98e9 / clock_hz,
            "block_s": 80e-9 * 1.98e9 / clock_hz}


GPUS: dict[str, GpuModel] = {
    "H100": GpuModel("H100", sms=132, clock_hz=1.98e9, dram_bps=3.0e12, l2_bps=7.0e12, fp32_flops=66.9e12,
                     tensor_flops=989e12, launch_s=2.5e-6, atomic_same_address_s=1.77e-9,
                     source="H100 SXM5 80GB: copy measured 3.0 TB/s; same-address atomic 1.77 ns and 80 ns "
                            "per block per SM from bench/profile_micro.py; spec sheet otherwise",
                     block_s=80e-9, l2_bytes=50 << 20, smem_per_sm=228 << 10),
    # NVIDIA H200 Tensor Core GPU datasheet (SXM): 4.8 TB/s HBM3e, FP32 67 TFLOPS, FP16 tensor
    # 1,979 TFLOPS with sparsity (989 dense); the H100's GH100 die otherwise: 132 SMs, 1.98 GHz,
    # 50 MB L2, 228 KB shared memory per SM (NVIDIA Hopper architecture whitepaper).
    "H200": GpuModel("H200", sms=132, clock_hz=1.98e9, dram_bps=0.9 * 4.8e12, fp32_flops=67e12,
                     tensor_flops=989e12, launch_s=2.5e-6, source="H200 SXM datasheet; Hopper whitepaper",
                     l2_bytes=50 << 20, smem_per_sm=228 << 10, **_scaled(132, 1.98e9)),
    # NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB): 2,039 GB/s HBM2e, FP32 19.5 TFLOPS, FP16
    # tensor 312 TFLOPS; NVIDIA Ampere GA100 whitepaper: 108 SMs, 1,410 MHz boost, 40 MB L2,
    # 164 KB shared memory per SM.
    "A100": GpuModel("A100", sms=108, clock_hz=1.41e9, dram_bps=0.9 * 2.039e12, fp32_flops=19.5e12,
                     tensor_flops=312e12, launch_s=2.5e-6, source="A100 SXM4 80GB datasheet; GA100 whitepaper",
                     l2_bytes=40 << 20, smem_per_sm=164 << 10, **_scaled(108, 1.41e9)),
    # NVIDIA L4 Tensor Core GPU datasheet: 300 GB/s GDDR6, FP32 30.3 TFLOPS, FP16 tensor 242
    # TFLOPS with sparsity (121 dense); NVIDIA Ada Lovelace architecture whitepaper (AD104 as L4):
    # 58 SMs, 2,040 MHz boost, 48 MB L2, 100 KB shared memory per SM.
    "L4": GpuModel("L4", sms=58, clock_hz=2.04e9, dram_bps=0.9 * 0.3e12, fp32_flops=30.3e12,
                   tensor_flops=121e12, launch_s=3.0e-6, source="L4 datasheet; Ada Lovelace whitepaper",
                   l2_bytes=48 << 20, smem_per_sm=100 << 10, max_threads_per_sm=1536, **_scaled(58, 2.04e9)),
    # NVIDIA Ada Lovelace architecture whitepaper, GeForce RTX 4090 (AD102): 128 SMs, 2,520 MHz
    # boost, 1,008 GB/s GDDR6X, 72 MB L2, FP32 82.6 TFLOPS, FP16 tensor with FP32 accumulate
    # 165.2 TFLOPS dense; 100 KB shared memory per SM.
    "RTX4090": GpuModel("RTX4090", sms=128, clock_hz=2.52e9, dram_bps=0.9 * 1.008e12, fp32_flops=82.6e12,
                        tensor_flops=165.2e12, launch_s=3.0e-6, source="Ada Lovelace whitepaper (RTX 4090)",
                        l2_bytes=72 << 20, smem_per_sm=100 << 10, max_threads_per_sm=1536,
                        **_scaled(128, 2.52e9)),
}
DEFAULT_GPU = "H100"
GPU_ENV = "KDOJO_PROFILE_GPU"  # the card the emulator's estimate models (docs/configuration.md)
# Three constants FITTED to the H100 lesson timings (bench/profile_agreement.py --fit: a grid search
# for the lowest median |error|; docs/benchmarks.md "Profiling (#16)" gives the in-sample figures and
# the leave-one-lesson-out ones, fitted without the lesson they are scored on, that MEASURED_ACCURACY
# states). Everything else is a spec sheet or a microbenchmark (bench/profile_micro.py).
INSTRUCTIONS_PER_MEMORY_INSTRUCTION = 6.0  # fitted (grid 2-16): the emulator sees memory instructions only
WARPS_TO_SATURATE = 4    # fitted (grid 4-32): warps per SM that reach the throughput ceilings
L2_REPEAT_FRACTION = 0.5  # fitted (grid 0-1): of the sectors a launch requests again, the share L2 serves
# The rereads' working-set rule (#26, missed_rereads) adds no constant: it takes each card's L2 size
# (GpuModel.l2_bytes, from its datasheet or whitepaper, cited above) and caps resident blocks at the
# card's threads per SM (kernels/profile/doc.py, the CUDA C Programming Guide's table).
FEW_ADDRESSES = 4096    # atomics on at most this many addresses: the same addresses at the big size
# A global load's latency under load, assumed (not fitted): an H100's idle DRAM latency is about
# 500 ns and grows under load; one load request per warp in flight at a time (a loop's next
# address or use waits for it). The dram term is at least the requests each resident warp makes
# one after another × this, the `latency` term (#26: a 2-byte-per-lane GLU, a byte-per-load histogram).
LOAD_LATENCY_S = 600e-9
# A block's serial chain (#26) past its loads, measured by bench/profile_micro.py on an H200 (the
# H100's GH100 SM, 1.98 GHz) with 8 blocks of 256 threads per SM, as a scan runs: a __shfl_up_sync
# and the add that uses it 35 ns a step (18 ns with one warp per SM), a __syncthreads() between a
# shared store and load 70 ns (22 ns with one block per SM); in cycles, for every card's clock.
COLLECTIVE_CYCLES = 35e-9 * 1.98e9
BARRIER_CYCLES = 70e-9 * 1.98e9
SERIAL_TERMS = ("atomics", "blocks", "latency")  # latency: residency is in it already
# A source with inline-PTX tensor-core instructions (mma.sync, wgmma) has a plain fallback path
# for targets without them, and that is what the emulator runs and counts: its requests, shared
# wavefronts and instructions are not the GPU's. Such an estimate is the roofline bound (DRAM,
# tensor compute, block starts, atomics) and says so in `note`. (WMMA is counted per fragment
# op by the runtime, kdojo_profile.cpp, and keeps every term.)
EMULATED_FRAGMENT_TERMS = ("l2", "shared", "issue", "latency")
BOUNDS = ("launch", "dram", "l2", "shared", "issue", "atomics", "blocks", "latency", "compute")

# The model's accuracy, measured by bench/profile_agreement.py on an H100 over every lesson's
# reference and correct solutions (docs/benchmarks.md, "Profiling (#16)"). None: not measured.
MEASURED_ACCURACY: dict[str, dict[str, Any]] = {
    # 2026-11-29 (#26), which loads wait on which (each request's share of new sectors, each block's
    # serial chain of rounds, collectives and barriers; stores combined in L1), on counts taken
    # again with the new keys (bench/data/profile-agreement-2026-11-29/emu.jsonl.gz): leave-one-
    # lesson-out over 110 files; in-sample with the shipped constants 20.6%, 0.939. The model
    # before it on the same counts: leave-one-lesson-out 27.3%, 0.933; in-sample 24.9%, 0.940
    # (the counts stored before were of an earlier case choice for 12 files). Before it:
    # 2026-11-29 (#26), each launch scaled at most as far as its buffers (launch_scale): the same
    # counts and times, leave-one-lesson-out over 110 files (every fold now picks WARPS_TO_SATURATE
    # 32, the grid's edge, and 17 of 21 L2_REPEAT_FRACTION 0: in-sample 19.7%, 0.933 there, a flat
    # optimum); in-sample with the shipped constants: 20.1%, 0.944. Before it:
    # 2026-11-29 (#26), rereads from DRAM once the resident blocks' footprints outgrow L2
    # (missed_rereads): the same counts and times, leave-one-lesson-out over 110 files; in-sample
    # with the shipped constants: 20.3%, 0.943. Before it:
    # 2026-11-29 (#26), the benchmark-size sample, stores never hitting L1 and the latency bound:
    # the emulator's counts of every lesson file (bench/data/profile-agreement-2026-11-29/emu.jsonl.gz,
    # bench/profile_agreement.py --backend emu --all on the dev machine) against the same stored H100
    # times (2026-11-27b), leave-one-lesson-out (--fit) over 110 files; in-sample with the shipped
    # constants: 23.5%, 0.935; leave-one-lesson-out 25.3%, 0.933. Before (the small test case, 2026-11-27):
    # 2026-11-27, second model, H100 timings over every timed lesson file: leave-one-lesson-out
    # (each lesson estimated with the constants fitted on the other lessons only) over 110 files,
    # scalar shared runs counted as nvcc's vector accesses and reduction.full_sum counted too
    # (bench/data/profile-agreement-2026-11-27b/; in-sample, the shipped constants: 22.6%, 0.906;
    # the same counts without full_sum, 106 files: 32.8%, 0.902; before the shared runs 30.2%,
    # 0.906; 2026-11-24: 33.3%, 0.907 over 94 files; the first model, nothing fitted: 59.8%, 0.838)
    "H100": {"median_abs_error_pct": 20.6, "spearman": 0.94, "kernels": 110},
}



def _number_or_null(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0)


def gpu_name() -> str:
    """The card the estimate models: $KDOJO_PROFILE_GPU, else DEFAULT_GPU; ValueError names a bad one."""
    name = (settings.value(GPU_ENV) or "").strip() or DEFAULT_GPU
    if name not in GPUS:
        raise ValueError(f"{GPU_ENV}: unknown card {name!r} (one of {', '.join(GPUS)})")
    return name


def gpu_model(name: str | None = None) -> GpuModel:
    return GPUS[name or gpu_name()]


def _model_value(expr: Any, env: dict[str, Any]) -> float | None:
    if expr is None:
        return None
    try:
        value = float(expr.evaluate(env))
    except Exception:  # noqa: BLE001 — a model the case cannot evaluate: no value
        return None
    return value if value > 0 and math.isfinite(value) else None


def largest_case(exercise: Any, constants: dict[str, int]) -> Any:
    """The benchmark case with the most bytes (or flops, or threads) in the exercise's model."""
    from kernels.plan import env_for

    bench = exercise.benchmark
    def size(case: Any) -> float:
        env = env_for(case, constants)
        return _model_value(bench.bytes, env) or _model_value(bench.flops, env) or _threads(exercise, env)
    return max(bench.cases, key=size)


def _threads(exercise: Any, env: dict[str, Any]) -> float:
    from kernels.plan import resolve_launches

    return float(sum(int(np.prod(l.grid)) * int(np.prod(l.block)) for l in resolve_launches(exercise.launches, env)))


def scale_between(exercise: Any, counted_env: dict[str, Any], bench_env: dict[str, Any]) -> tuple[float, str]:
    """(factor, what gave it): the benchmark case's size over the counted case's."""
    bench = exercise.benchmark
    for name, expr in (("bytes", bench.bytes), ("flops", bench.flops)):
        small, big = _model_value(expr, counted_env), _model_value(expr, bench_env)
        if small and big:
            return big / small, name
    small, big = _threads(exercise, counted_env), _threads(exercise, bench_env)
    return (big / small, "threads") if small else (1.0, "none")


ITEMSIZE = {"int8": 1, "uint8": 1, "float16": 2, "bfloat16": 2, "float32": 4, "int32": 4, "uint32": 4,
            "float64": 8, "int64": 8}


def footprint_bytes(exercise: Any, env: dict[str, Any]) -> float:
    """Bytes of all the exercise's buffers at one case: what compulsory DRAM traffic grows with."""
    from kernels.plan import buffer_shapes

    shapes = buffer_shapes(exercise, env)
    return float(sum(int(np.prod(shapes[b.name])) * ITEMSIZE.get(b.dtype, 4) for b in exercise.buffers))


def footprint_scale(exercise: Any, counted_env: dict[str, Any], bench_env: dict[str, Any]) -> float:
    """How much the distinct sectors grow from the counted case to the benchmark case: the byte
    model's ratio where there is one, else the buffers' footprint ratio (a GEMM's distinct traffic
    grows like its matrices, N², not like its flops, N³)."""
    small, big = _model_value(exercise.benchmark.bytes, counted_env), _model_value(exercise.benchmark.bytes, bench_env)
    if small and big:
        return big / small
    small, big = footprint_bytes(exercise, counted_env), footprint_bytes(exercise, bench_env)
    return big / small if small else 1.0


def _tokens(source: str) -> list[Any]:
    """The source's tokens, comments left out (its first MiB); [] where it does not tokenize."""
    from kernels.emu.source import SourceError, tokenize

    try:
        return tokenize(source[:1 << 20])
    except SourceError:
        return []


def _has_asm(tokens: list[Any]) -> bool:
    return any(t.kind == "ident" and t.text in ("asm", "__asm__", "__asm") for t in tokens)


def has_inline_asm(source: str) -> bool:
    """An `asm` statement outside comments. The emulator runs no inline PTX (a live one is refused as
    needing a GPU), so in an accepted attempt it sits in a branch the emulator did not compile."""
    return _has_asm(_tokens(source))


def uses_ptx_tensor_cores(source: str) -> bool:
    """Inline PTX mma.sync / wgmma: on the emulator a fallback path runs instead. The PTX is string
    text of an `asm` statement; named in a comment they are no PTX."""
    tokens = _tokens(source)
    return _has_asm(tokens) and any(t.kind == "string" and re.search(r"\bmma\.sync\b|\bwgmma\b", t.text)
                                    for t in tokens)


def uses_tensor_cores(source: str) -> bool:
    return bool(re.search(r"\bwmma::mma_sync\b|\bmma\.sync\b|\bwgmma\b", source))


def dram_bytes(counts: list[dict[str, int]], dram_scale: float) -> float:
    """The DRAM bytes the emulator's counts imply at the benchmark size: every distinct 32-byte
    sector read or written, scaled by `dram_scale` (footprint_scale)."""
    return 32.0 * sum((c.get("gld_unique", 0) + c.get("gst_unique", 0)) / coverage(c) for c in counts) * dram_scale


def coverage(counts: dict[str, int]) -> float:
    """The share of a launch its counts cover: 1, or for a launch cut off at the runtime's record
    cap, the accesses recorded ÷ the accesses seen (the counts are the launch's first blocks)."""
    seen, kept = counts.get("accesses", 0), counts.get("active_lanes", 0)
    return kept / seen if counts.get("truncated") and seen > kept > 0 else 1.0


def resident_blocks(blocks: int, threads_per_block: int, blocks_per_sm: int | None, gpu: GpuModel) -> int:
    """Blocks resident at once: the occupancy's blocks per SM (64 warps' worth without it), at most
    the card's threads per SM allow at this block size (the occupancy may be the counted case's,
    whose blocks were smaller), on every SM, at most the grid."""
    per_sm = blocks_per_sm or max(1, 64 // max(1, -(-threads_per_block // 32)))
    per_sm = min(per_sm, max(1, gpu.max_threads_per_sm // max(1, threads_per_block)))
    return min(blocks, gpu.sms * per_sm)


def launch_scale(exercise: Any, spec: Any, counts: dict[str, int], counted_env: dict[str, Any],
                 bench_env: dict[str, Any], scale: float) -> float:
    """`scale` (the byte model's growth, counted case → benchmark case) for one launch, at most what
    its buffers allow (#26): a launch's distinct loaded sectors cannot outgrow the buffers it takes,
    nor its distinct stored sectors the ones it may write (non-`const`), at the benchmark size.
    Its work grows with the larger of the two. A launch over a fixed-size buffer (a radix sort's
    scan of 256 digit counts per block, at most 512 blocks) grows as far as that buffer, not with
    the exercise's keys. Never below 1: the counted case's own work."""
    from kernels.plan import buffer_shapes

    full = 1.0 / coverage(counts)
    dtypes = {b.name: b.dtype for b in exercise.buffers}
    big, small = buffer_shapes(exercise, bench_env), buffer_shapes(exercise, counted_env)
    taken = {a.buffer: a.param.const for a in spec.args if a.buffer is not None}
    def sectors(shapes: dict[str, Any], names: Any) -> float:
        return sum(int(np.prod(shapes[n])) * ITEMSIZE.get(dtypes[n], 4) for n in names) / 32
    caps = []
    for kind, names in (("gld_unique", list(taken)), ("gst_unique", [n for n, const in taken.items() if not const])):
        # distinct sectors counted, at most the buffers' (a sample's blocks sharing data count them again)
        seen = min(counts.get(kind, 0) * full, sectors(small, names))
        if seen > 0:
            caps.append(sectors(big, names) / seen)
    return min(scale, max(1.0, *caps)) if caps else scale


def l2_held_sectors(exercise: Any, counted_env: dict[str, Any], bench_env: dict[str, Any], gpu: GpuModel) -> float:
    """Sectors, at the counted case, of the buffers that stay in L2 at the benchmark case: the
    smallest ones there, as many as fit in the L2 together (a LayerNorm's weight and bias, a
    sparse product's vector). Every block may read them, and they stay, so their rereads are hits."""
    from kernels.plan import buffer_shapes

    big, small = buffer_shapes(exercise, bench_env), buffer_shapes(exercise, counted_env)
    held = room = 0.0
    for b in sorted(exercise.buffers, key=lambda b: int(np.prod(big[b.name])) * ITEMSIZE.get(b.dtype, 4)):
        room += int(np.prod(big[b.name])) * ITEMSIZE.get(b.dtype, 4)
        if room > gpu.l2_bytes:
            break
        held += int(np.prod(small[b.name])) * ITEMSIZE.get(b.dtype, 4) / 32
    return held


def missed_rereads(c: dict[str, float], blocks: int, threads_per_block: int, blocks_per_sm: int | None,
                   gpu: GpuModel, dram_scale: float, held_sectors: float = 0.0) -> float:
    """Loaded sectors (counted case; the caller scales them) that L2 no longer holds when they are
    read again. Rereads are loads of the same bytes again: requested sectors up to the ideal ones
    (a warp's request for a sector's other bytes is a different, spatial reuse, mostly L1's),
    less the distinct, less `held_sectors` (the counted grid's blocks each reading the buffers
    l2_held_sectors keeps once: shared, and hits). They miss when the blocks resident together
    touch more than the L2 holds: resident blocks × the distinct bytes (loaded and stored,
    at the benchmark size) per block, each block's whole footprint before its rereads are done."""
    gld = c["gld_sectors"]
    again = min(c.get("gld_ideal", gld), gld) - min(gld, c.get("gld_unique", 0)) - held_sectors
    if again <= 0 or not gpu.l2_bytes or blocks <= 0:
        return 0.0
    per_block = 32 * (c.get("gld_unique", 0) + c.get("gst_unique", 0)) * dram_scale / blocks
    working_set = resident_blocks(blocks, threads_per_block, blocks_per_sm, gpu) * per_block
    return again if working_set > gpu.l2_bytes else 0.0


def launch_terms(counts: dict[str, int], scale: float, blocks: int, threads_per_block: int,
                 blocks_per_sm: int | None, gpu: GpuModel, dram_scale: float | None = None,
                 max_sectors: float | None = None, counted_threads: int | None = None,
                 held_sectors: float | None = 0.0) -> dict[str, float]:
    """Seconds per ceiling for one launch at the benchmark size (before parallelism and overhead).
    `scale` multiplies the work (requests, wavefronts, instructions); `dram_scale` the distinct
    sectors (footprint_scale; `scale` where not given). A truncated launch's counts are scaled up
    by 1 / coverage; its distinct sectors at most `max_sectors` (the buffers', counted case).
    `counted_threads`: the launch's threads in the counted case; atomics that were at most one per
    counted thread (one per block or per warp into a total) grow with the threads, not the work (a
    fixed grid's stay as they are), more than that with the work. `held_sectors`: rereads of
    buffers L2 keeps, up to which rereads stay hits (missed_rereads); None: no rereads are
    costed (the counted requests are not the GPU's: an inline-PTX source's fallback path)."""
    full = 1.0 / coverage(counts)
    c = {k: v * full for k, v in counts.items()} if full != 1.0 else counts
    if full != 1.0 and max_sectors:
        kept = c.get("gld_unique", 0) + c.get("gst_unique", 0)
        if kept > max_sectors:
            c = dict(c, gld_unique=c.get("gld_unique", 0) * max_sectors / kept,
                     gst_unique=c.get("gst_unique", 0) * max_sectors / kept)
    requested = c["gld_sectors"] + c["gst_sectors"] + c.get("gatom_ops", 0)
    loads = c["gld_sectors"] + c.get("gatom_ops", 0)
    distinct = min(loads, c.get("gld_unique", 0)) or loads
    # sectors L2 serves: each distinct loaded one once, plus a fraction of the repeats (the rest hit
    # in L1), and every stored one: L1 writes through, so a sector stored 8 times in 8 requests (a
    # naive transpose's column writes) is 8 L2 writes (#26)
    # L2 receives: a thread's store into the sector it stored to just before was combined with that
    # one in L1 (gst_l2; counts without it, from before #26's key: every stored sector)
    stored = c.get("gst_l2") or c["gst_sectors"]
    sectors = (distinct + L2_REPEAT_FRACTION * (loads - distinct) + stored) * scale
    dscale = scale if dram_scale is None else dram_scale
    unique = (c.get("gld_unique", 0) + c.get("gst_unique", 0)) * dscale or requested * scale
    # rereads L2 no longer holds (#26): DRAM moves them again, and their requests wait on it
    missed = 0.0 if held_sectors is None else \
        missed_rereads(c, blocks, threads_per_block, blocks_per_sm, gpu, dscale, held_sectors)
    per_thread = counted_threads is not None and c.get("gatom_ops", 0) <= counted_threads
    atom_scale = blocks * threads_per_block / max(1, counted_threads) if per_thread else scale
    atom_max = c.get("gatom_max", 0) * (atom_scale if c.get("gatom_addrs", 0) <= FEW_ADDRESSES else 1.0)
    instructions = c["warp_inst"] * INSTRUCTIONS_PER_MEMORY_INSTRUCTION * scale
    # Little's law (#26): a warp waits a DRAM latency for each load request before it can use it,
    # so narrow loads (2 bytes a lane) cannot keep enough bytes in flight to reach the bandwidth
    warps = max(1, -(-threads_per_block // 32))
    resident = min(blocks, gpu.sms * (blocks_per_sm or max(1, 64 // warps))) * warps
    # only requests for sectors not loaded before wait on DRAM (a chunk-per-thread loop's next
    # elements are L1 hits, a stencil's taps too): the requests times the launch's share of new
    # sectors, or, if fewer, each request in its own share (gld_req_new, in 1/1024ths: a stencil's
    # staging loads wait, its taps do not; a gather's lanes overlap in flight, which the launch's
    # share allows for), the new ones growing with the distinct sectors (dscale: a GEMM's K loop
    # rereads its tiles), plus the rereads L2 no longer holds
    new = min(1.0, (c.get("gld_unique", 0) * dscale / scale + missed) / c["gld_sectors"]) if c["gld_sectors"] else 1.0
    waits = c["gld_req"] * new * scale / resident * LOAD_LATENCY_S
    if c.get("gld_req_new"):
        reread = missed / c["gld_sectors"] if c["gld_sectors"] else 0.0
        waits = min(waits, (c["gld_req_new"] / 1024 * dscale + c["gld_req"] * reread * scale) / resident * LOAD_LATENCY_S)
    # a block holds its slots until its busiest thread's serial chain is done: a DRAM latency for
    # each of its rounds of loads that bring a new sector (loads before a store or a barrier are in
    # flight together: kdojo_profile.cpp count_rounds), and each warp collective and barrier; the
    # resident blocks side by side. Longer than the requests spread over every warp where one warp
    # does the block's serial loads (an edge warp loading the halo and the taps) or a scan's
    # shuffles and barriers follow each load
    rounds = c.get("gld_rounds", 0) * (dscale + scale * missed / max(1.0, c.get("gld_unique", 0)))
    steps = (c.get("block_collectives", 0) * COLLECTIVE_CYCLES + c.get("block_barriers", 0) * BARRIER_CYCLES) / gpu.clock_hz
    waits = max(waits, (rounds * LOAD_LATENCY_S + steps * scale) / (resident // warps))
    return {
        "dram": 32 * (unique + missed * scale) / gpu.dram_bps,
        "latency": waits,
        "l2": 32 * sectors / gpu.l2_bps,
        "shared": c["shd_wavefronts"] * scale / (gpu.sms * gpu.clock_hz),
        "issue": instructions / (gpu.sms * 4 * gpu.clock_hz),
        "atomics": atom_max * gpu.atomic_same_address_s,
        "blocks": blocks / gpu.sms * gpu.block_s,
    }


def parallelism(blocks: int, threads_per_block: int, blocks_per_sm: int | None, gpu: GpuModel) -> float:
    """The fraction of the GPU's throughput the launch can use (resident warps ÷ warps that saturate)."""
    warps = max(1, -(-threads_per_block // 32))
    per_sm = blocks_per_sm or max(1, 64 // warps)
    resident = min(blocks, gpu.sms * per_sm) * warps
    return min(1.0, resident / (gpu.sms * WARPS_TO_SATURATE))


def estimate(exercise: Any, source: str, counted_case: Any, counts: list[dict[str, int]],
             occupancy: list[dict[str, Any] | None], constants: dict[str, int],
             gpu_name: str | None = None) -> dict[str, Any] | None:
    """The `estimate` object for the profile (see docs/judge.md), or None without a benchmark."""
    from kernels.plan import env_for, resolve_launches

    if exercise.benchmark is None or not counts:
        return None
    gpu = gpu_model(gpu_name)
    case = largest_case(exercise, constants)
    bench_env, counted_env = env_for(case, constants), env_for(counted_case, constants)
    scale, scaled_by = scale_between(exercise, counted_env, bench_env)
    dram_scale = footprint_scale(exercise, counted_env, bench_env)
    max_sectors = footprint_bytes(exercise, counted_env) / 32
    held = l2_held_sectors(exercise, counted_env, bench_env, gpu)
    launches = resolve_launches(exercise.launches, bench_env)
    counted = resolve_launches(exercise.launches, counted_env)
    if len(launches) != len(counts) or len(counted) != len(counts):
        return None
    totals = {k: 0.0 for k in BOUNDS}
    time_s = moved = 0.0
    tensor = uses_tensor_cores(source)
    fallback = uses_ptx_tensor_cores(source)
    for spec, launch, was, c, occ in zip(exercise.launches, launches, counted, counts, occupancy):
        blocks = int(np.prod(launch.grid))
        threads = int(np.prod(launch.block))
        # the byte model's growth, at most as far as the launch's own buffers go (launch_scale)
        grow, dscale = scale, dram_scale
        if scaled_by == "bytes":  # the byte model's ratio is dram_scale too
            grow = dscale = launch_scale(exercise, spec, c, counted_env, bench_env, scale)
        moved += dram_bytes([c], dscale)
        terms = launch_terms(c, grow, blocks, threads, (occ or {}).get("blocks_per_sm"), gpu, dscale,
                             max_sectors, counted_threads=int(np.prod(was.grid)) * int(np.prod(was.block)),
                             held_sectors=None if fallback else held * int(np.prod(was.grid)))
        eff = parallelism(blocks, threads, (occ or {}).get("blocks_per_sm"), gpu)
        # throughput ceilings need enough warps in flight; one address's atomics and the SMs'
        # block starts are serial whatever the occupancy
        scaled = {k: v if k in SERIAL_TERMS else v / eff for k, v in terms.items()
                  if not (fallback and k in EMULATED_FRAGMENT_TERMS)}
        for k, v in scaled.items():
            totals[k] += v
        totals["launch"] += gpu.launch_s
        time_s += gpu.launch_s + max(scaled.values())
    flops = _model_value(exercise.benchmark.flops, bench_env)
    if flops:
        peak = gpu.tensor_flops if tensor and gpu.tensor_flops else gpu.fp32_flops
        totals["compute"] = flops / peak
        time_s = max(time_s, totals["launch"] + totals["compute"])
    bound = max((k for k in BOUNDS if k != "launch"), key=lambda k: totals[k])
    if totals["launch"] >= totals[bound]:
        bound = "launch"
    return {"label": "estimate", "gpu": gpu.name, "case": case.label, "counted_case": counted_case.label,
            "scale": round(scale, 3), "scaled_by": scaled_by, "dram_bytes": round(moved),
            "time_ms": round(time_s * 1e3, 6), "bound": bound,
            "terms_ms": {k: round(v * 1e3, 6) for k, v in totals.items()},
            **({"note": "inline-PTX tensor-core code: the emulator counted its fallback path, so only "
                        "DRAM, tensor compute, block starts and atomics bound this estimate"} if fallback else {}),
            "accuracy": dict(MEASURED_ACCURACY.get(gpu.name, {"median_abs_error_pct": None, "spearman": None,
                                                               "kernels": 0}))}


def _point(who: str, kind: str, time_ms: float | None, nbytes: float | None, flops: float | None) -> dict | None:
    if not time_ms or time_ms <= 0:
        return None
    seconds = time_ms * 1e-3
    return {"who": who, "kind": kind, "time_ms": round(time_ms, 6), "bytes": nbytes, "flops": flops,
            "intensity": round(flops / nbytes, 4) if flops and nbytes else None,
            "gbs": round(nbytes / seconds / 1e9, 1) if nbytes else None,
            "gflops": round(flops / seconds / 1e9, 1) if flops else None}


def roofline(exercise: Any, constants: dict[str, int], attempt_ms: float | None, attempt_kind: str,
             framework_ms: float | None = None, gpu_name: str | None = None,
             traffic_bytes: float | None = None, traffic_from: str | None = None) -> dict[str, Any] | None:
    """The `roofline` object: ceilings and points at the largest benchmark case (None without a benchmark).

    Bytes are the exercise's byte model at that case; where it has none, `traffic_bytes`: the DRAM
    traffic counted for this attempt (`traffic_from` "emulator": distinct sectors × 32 B, scaled;
    "ncu": ncu's DRAM bytes, scaled). FLOPs are the exercise's flop model (none: no intensity).
    Every point shares them: the same problem, so points differ only in time."""
    from kernels.plan import env_for

    if exercise.benchmark is None:
        return None
    gpu = gpu_model(gpu_name)
    case = largest_case(exercise, constants)
    env = env_for(case, constants)
    nbytes, flops = _model_value(exercise.benchmark.bytes, env), _model_value(exercise.benchmark.flops, env)
    bytes_from = "model" if nbytes else None
    if nbytes is None and traffic_bytes and traffic_bytes > 0 and math.isfinite(traffic_bytes):
        nbytes, bytes_from = float(round(traffic_bytes)), traffic_from
    flops_from = "model" if flops else None
    stored = measured_h100().get(exercise.id, {}) if gpu.name == "H100" else {}
    if stored.get("case") != case.label:
        stored = {}
    points = [_point("attempt", attempt_kind, attempt_ms, nbytes, flops),
              _point("reference", "measured", stored.get("reference_ms"), nbytes, flops),
              _point("framework", "measured", framework_ms or stored.get("framework_ms"), nbytes, flops)]
    return {"gpu": gpu.name, "case": case.label, "bandwidth_gbs": round(gpu.dram_bps / 1e9, 1),
            "compute_gflops": round(gpu.fp32_flops / 1e9, 1),
            "tensor_gflops": round(gpu.tensor_flops / 1e9, 1) if gpu.tensor_flops else None,
            "bytes_from": bytes_from, "flops_from": flops_from,
            "points": [p for p in points if p]}


_MEASURED: dict[str, dict[str, Any]] = {}


def measured_h100() -> dict[str, dict[str, Any]]:
    """Reference and framework times measured on an H100 at the largest benchmark case
    (kernels/profile/h100.json, written from bench/profile_agreement.py's times.jsonl)."""
    if not _MEASURED:
        import json
        from pathlib import Path

        path = Path(__file__).with_name("h100.json")
        _MEASURED.update(json.loads(path.read_text()) if path.exists() else {"": {}})
    return _MEASURED


def validate(profile: dict[str, Any]) -> list[str]:
    """What is wrong with the optional `estimate` and `roofline` of a profile."""
    errors = []
    est = profile.get("estimate")
    if est is not None:
        ok = isinstance(est, dict) and est.get("label") == "estimate" and est.get("bound") in BOUNDS \
            and _number_or_null(est.get("time_ms")) and est.get("time_ms") is not None \
            and isinstance(est.get("accuracy"), dict) and isinstance(est.get("terms_ms"), dict)
        if not ok:
            errors.append("profile.estimate needs label \"estimate\", time_ms, bound, terms_ms and accuracy")
    roof = profile.get("roofline")
    if roof is not None:
        ok = isinstance(roof, dict) and isinstance(roof.get("points"), list) \
            and _number_or_null(roof.get("bandwidth_gbs")) and _number_or_null(roof.get("compute_gflops")) \
            and all(isinstance(p, dict) and p.get("who") in ("attempt", "reference", "framework")
                    and p.get("kind") in ("estimate", "measured") for p in roof["points"])
        if not ok:
            errors.append("profile.roofline needs bandwidth_gbs, compute_gflops and points (who, kind)")
    return errors
