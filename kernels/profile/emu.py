"""The emulator's profiler counts (#16): one profiled run of the check program.

The check build already sees every load and store of learner code (GCC's TSan
instrumentation, runtime/kdojo_check.cpp); the profiler's program is the check
program plus a call at every basic block (-fsanitize-coverage=trace-pc, compiled
on first use: kernels/emu/build.py compile_profile_program). A request with mode
bit 2 makes the runtime group the accesses into warp-wide instructions, count
each lane's basic blocks, and answer, per launch, one "profile" diagnostic of
`key=value` counts (runtime/kdojo_profile.cpp).
The answer comes from the learner's process, so it is parsed as untrusted data:
known keys only, non-negative integers, bounded.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from kernels.emu.process import Crash
from kernels.emu.protocol import WireResponse

MODE_PROFILE = 2
COUNT_KEYS = ("gld_req", "gld_sectors", "gld_ideal", "gst_req", "gst_sectors", "gst_ideal", "shd_req",
              "shd_wavefronts", "shd_ideal", "shd_max_ways", "warp_inst", "active_lanes", "atom_ops",
              "atom_addrs", "atom_max", "truncated", "gmem_inst", "gmem_lanes",
              # distinct global sectors read / written in the launch, global atomics alone (#16 estimate)
              "gld_unique", "gst_unique", "gatom_ops", "gatom_addrs", "gatom_max",
              # lane accesses seen, recorded or not: a truncated launch's counts cover active_lanes / accesses
              "accesses",
              # every executed basic block (trace-pc): warp and thread executions, unweighted and weighted
              # by the block's code bytes; bb_dropped: executions past the table of distinct blocks
              "bb_inst", "bb_lanes", "code_inst", "code_lanes", "code_pred_lanes", "bb_dropped", "bb_pred_lanes",
              # the same weighted by code bytes less the instrumentation's own (hook calls, alignment
              # checks): what the warp execution efficiency metric uses
              "work_inst", "work_lanes", "work_pred_lanes",
              # the launch's blocks that ran: all of them, or a sample of a benchmark-size grid (#26)
              "blocks",
              # (#26) each block's busiest thread's rounds of global loads in flight together (a store or
              # a barrier ends one), summed; the stored sectors that reach L2 (a thread's stores into
              # the sector it stored to just before are combined in L1)
              "gld_rounds", "gst_l2",
              # (#26) the rest of a block's serial chain, its busiest thread's: warp collectives
              # (shuffles, votes) and barriers, summed over blocks
              "block_collectives", "block_barriers",
              # (#26) load requests, each weighing the share of its sectors that no earlier load of the
              # launch brought, in 1/1024ths
              "gld_req_new")
_MAX_COUNT = 1 << 62
# The profiled case must stay small: the check build is slow and records every access.
PROFILE_MAX_THREADS = 1 << 16
# An exercise whose every case launches more (a fixed grid: reduction.full_sum's 1024 x 256 whatever
# N is) is counted on its case with the fewest threads, up to this many: full_sum's 262,144 threads
# over 2^21 floats count in 0.4 s here, and the records stop at the runtime's cap (the estimate
# scales a truncated launch up by the accesses it saw).
PROFILE_FALLBACK_MAX_THREADS = 1 << 18


class ProfileUnavailable(Exception):
    """No counts for this run (too big, crashed, or an answer we cannot read); one line why."""


# A benchmark-size launch (#26) runs at most this many of its blocks: the first, the last and
# evenly spaced ones between, in an order that spreads any prefix over the grid; the runtime starts
# no further block once half its record cap is used (kdojo_profile.cpp profile_sample_room).
SAMPLE_BLOCKS = 256
# Totals over a launch's blocks: a sample's are multiplied by grid blocks / sampled blocks. The
# rest are ratios' parts that stay (max ways, truncated) or atomics' spread (sample_scaled).
_NOT_TOTALS = ("shd_max_ways", "truncated", "blocks", "atom_addrs", "atom_max", "gatom_addrs", "gatom_max")


def profile_request(request: bytes, sample_blocks: int = 0) -> bytes:
    """`request` (kernels.emu.protocol.encode_request) asking for counts, in natural order;
    `sample_blocks` > 1: each launch runs at most that many of its blocks (mode bits 8-31)."""
    if not 0 <= sample_blocks < 1 << 24:
        raise ValueError("sample_blocks out of range")
    magic, = struct.unpack_from("<I", request, 0)
    return struct.pack("<II", magic, MODE_PROFILE | sample_blocks << 8) + request[8:]


def sample_scaled(counts: dict[str, int], grid_blocks: int, few_addresses: int = 4096,
                  max_sectors: float | None = None) -> dict[str, int]:
    """A launch's counts over its whole grid from those of the blocks that ran (`counts["blocks"]`).
    Totals grow by grid / ran; ratios of totals stay. Atomics on few addresses (a histogram's bins,
    one total) are the same addresses in every block: their most per address grows; on many
    (one per element), the addresses grow and the most per address stays. The distinct sectors
    stay within `max_sectors` (the buffers'): blocks that share data (a GEMM's rows) count the
    same sectors again."""
    ran = counts.get("blocks", 0)
    if ran <= 0 or ran >= grid_blocks:
        return dict(counts)
    factor = grid_blocks / ran
    out = {k: (v if k in _NOT_TOTALS else round(v * factor)) for k, v in counts.items()}
    for addrs, most in (("atom_addrs", "atom_max"), ("gatom_addrs", "gatom_max")):
        key = most if counts[addrs] <= few_addresses else addrs
        out[key] = round(counts[key] * factor)
    distinct = out["gld_unique"] + out["gst_unique"]
    if max_sectors and distinct > max_sectors:
        out["gld_unique"] = round(out["gld_unique"] * max_sectors / distinct)
        out["gst_unique"] = round(out["gst_unique"] * max_sectors / distinct)
    out["blocks"] = grid_blocks
    return out


def parse_counts(text: str) -> dict[str, int]:
    """One launch's `key=value;…` counts; ValueError unless exactly the known keys."""
    counts: dict[str, int] = {}
    for item in text[:2000].split(";"):
        key, sep, value = item.partition("=")
        if not sep or key not in COUNT_KEYS or key in counts or not value.isdigit() or len(value) > 19:
            raise ValueError(f"bad profile item {item[:40]!r}")
        counts[key] = min(int(value), _MAX_COUNT)
    if set(counts) != set(COUNT_KEYS):
        raise ValueError("profile counts incomplete")
    return counts


def launch_counts(response: WireResponse) -> list[dict[str, int]]:
    """Counts per launch, in launch order (the diagnostic's pc is the 1-based launch index)."""
    found = {}
    for diag in response.diagnostics:
        if diag.kind == "profile" and 1 <= diag.pc <= 64 and diag.pc not in found:
            found[diag.pc] = parse_counts(diag.message)
    return [found[i] for i in sorted(found)]


def count(program: Any, launches: list[Any], buffers: dict[str, Any], timeout_s: float,
          sample_blocks: int = 0) -> list[dict[str, int]]:
    """Run one case's launches on the check program with counting on; counts per launch, of the
    blocks that ran (`sample_blocks` > 1: at most that many per launch; sample_scaled scales them).

    Uses the emulator backend's own wire format and process (the learner's
    program stays in its sandbox); the answer carries no buffers (kdojo_host.cpp)."""
    from kernels.emu import target as emu

    per_launch = [int(np.prod(l.grid)) if sample_blocks < 2 else min(int(np.prod(l.grid)), sample_blocks)
                  for l in launches]
    threads = sum(b * int(np.prod(l.block)) for b, l in zip(per_launch, launches))
    if threads > PROFILE_FALLBACK_MAX_THREADS:
        raise ProfileUnavailable(f"the profiled case has {threads} threads (at most {PROFILE_FALLBACK_MAX_THREADS})")
    order = list(buffers)
    wire = [emu.WireBuffer(name, emu._bytes_view(buffers[name].full), buffers[name].payload_offset_bytes,
                           buffers[name].size * buffers[name].full.dtype.itemsize,
                           buffers[name].full.dtype.itemsize) for name in order]
    request = emu.encode_request(wire, [emu._wire_launch(launch, order) for launch in launches], adversarial=False)
    left = program.handle.remaining_s()  # all of it within the submission's budget (#11)
    if left <= 0.5:
        raise ProfileUnavailable("the submission's time budget is spent")
    try:
        # the build's wait is at most the run's own limit too: with the counted run after it, the step
        # stays within the judge's profiling deadline (run_s + compile_s), whatever the budget left
        # (#26: lesson 05's wmma_fp16, whose profiler build outlasted it, was killed there)
        proc = program.handle.profile_process(emu._cpu_budget(min(timeout_s, left)), min(left, timeout_s))
    except (emu.toolchain.CompilerLimit, emu.toolchain.ToolchainError) as exc:
        raise ProfileUnavailable(f"the profiler's program did not build: {str(exc)[:200]}") from None
    timeout_s = min(timeout_s, program.handle.remaining_s())
    if timeout_s <= 0.5:
        raise ProfileUnavailable("the submission's time budget is spent")
    cpu_s = emu._cpu_budget(timeout_s)
    got = proc.call(profile_request(request, sample_blocks if sample_blocks > 1 else 0), timeout_s, cpu_s)
    if isinstance(got, Crash) or got.fault_name is not None:
        raise ProfileUnavailable(f"the profiled run did not finish: {got!r:.300}")
    try:
        counts = launch_counts(got)
    except ValueError as exc:
        raise ProfileUnavailable(f"unreadable counts: {exc}") from None
    if len(counts) != len(launches):
        raise ProfileUnavailable("the profiled run did not count every launch")
    return counts
