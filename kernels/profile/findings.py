"""One to three plain findings from a profile (#16), each a message code with
parameters (kernels/contract.py MESSAGE_CODES, translated by the web) and the
lesson that teaches the fix. Thresholds are deliberately coarse: a finding is
said only when the counts leave no doubt (half again the ideal, or worse)."""

from __future__ import annotations

from typing import Any

from kernels.messages import Message

LESSONS = {
    "profile_uncoalesced": "/lessons/coalescing",
    "profile_bank_conflicts": "/lessons/shared-tiling",
    "profile_atomic_contention": "/lessons/histogram",
    "profile_divergence": "/lessons/warp-broadcast",
    "profile_low_occupancy": None,  # no lesson teaches occupancy yet
}
MAX_FINDINGS = 3


def _finding(severity: float, text: str, code: str, **params: Any) -> tuple[float, dict[str, Any]]:
    message = Message(text, code, **params)
    return severity, {"code": code, "params": dict(message.params), "message": str(message),
                      "lesson": LESSONS[code]}


def _kernel_findings(k: dict[str, Any]) -> list[tuple[float, dict[str, Any]]]:
    m, name, out = k["metrics"], k["name"], []
    for access, key in (("load", "global_load"), ("store", "global_store")):
        got, ideal = m[f"{key}_sectors_per_request"], m[f"{key}_ideal_sectors_per_request"]
        if got and ideal and got >= 1.5 * ideal:
            out.append(_finding(got / ideal, f"{name}: global {access}s touch {got:g} sectors of 32 bytes per "
                                f"request where {ideal:g} would do: neighbouring threads access addresses far apart",
                                "profile_uncoalesced", kernel=name, access=access, sectors=got, ideal=ideal))
    waves, ideal = m["shared_wavefronts_per_request"], m["shared_ideal_wavefronts_per_request"]
    if waves and ideal and waves >= 1.5 * ideal:
        ways = m["shared_bank_conflict_ways_max"] or 0
        out.append(_finding(waves / ideal, f"{name}: shared memory needs {waves:g} passes per request where "
                            f"{ideal:g} would do (up to {ways}-way bank conflicts)",
                            "profile_bank_conflicts", kernel=name, wavefronts=waves, ideal=ideal, ways=ways))
    mean, threads = m["atomics_per_address_mean"], _threads(k)
    # one atomic per block or per warp into one total is the usual, cheap pattern;
    # contention is many threads (one in 16 or more) queueing on few addresses
    if mean and mean >= 32 and m["atomics"] * 16 >= threads:
        out.append(_finding(mean / 16, f"{name}: {mean:g} atomic operations per address on average: "
                            "threads queue up on the same counters", "profile_atomic_contention",
                            kernel=name, per_address=mean, max=m["atomics_per_address_max"] or 0))
    # on the emulator, lanes of global memory instructions only: its count over all memory
    # instructions is dominated by shared-memory tree steps that cost little on a GPU
    # (block_sum: 47% there, 98.6% by ncu over every instruction; docs/benchmarks.md)
    eff = m["global_lanes_active_pct"] if m["global_lanes_active_pct"] is not None \
        else m["warp_execution_efficiency_pct"]
    if eff is not None and eff < 50:
        out.append(_finding(100 / max(eff, 1), f"{name}: on average only {eff:g}% of a warp's 32 lanes take part "
                            "in its memory instructions: the warp's threads take different branches",
                            "profile_divergence", kernel=name, efficiency_pct=eff))
    occ = k["occupancy"]
    if occ and occ["theoretical_pct"] < 50 and occ["limiter"] in ("registers", "shared_memory"):
        pct = occ["theoretical_pct"]
        out.append(_finding(50 / max(pct, 1), f"{name}: at most {pct:g}% of an SM's warps can be resident, "
                            f"limited by {occ['limiter'].replace('_', ' ')}", "profile_low_occupancy",
                            kernel=name, occupancy_pct=pct, limiter=occ["limiter"]))
    return out


def _threads(k: dict[str, Any]) -> int:
    grid, block = k["grid"], k["block"]
    return grid[0] * grid[1] * grid[2] * block[0] * block[1] * block[2]


# Findings read from the counted accesses (not from ptxas's resources, which are the real code's).
FROM_COUNTS = ("profile_uncoalesced", "profile_bank_conflicts", "profile_atomic_contention", "profile_divergence")
# Findings whose cause and fix are in code the learner writes per thread: a branch some lanes
# of a warp take, a shared array's layout. A Triton program is written per block; its compiler
# lays out the threads and shared memory, so these would send the learner to code they do not
# have: not said (coalescing, atomics and occupancy follow from the learner's offsets, atomics
# and launch choices in either language).
PER_THREAD_CODE = ("profile_bank_conflicts", "profile_divergence")


def findings(kernels: list[dict[str, Any]], counted_other_code: bool = False,
             per_thread_code: bool = True) -> list[dict[str, Any]]:
    """The worst problems first, at most MAX_FINDINGS, one per (code, kernel). `counted_other_code`:
    the counts are not of the code a GPU runs (inline PTX, profile.CAVEATS), so none is read from them.
    `per_thread_code`: the learner wrote each thread's code (CUDA C); False (Triton) leaves
    PER_THREAD_CODE's findings out."""
    left_out = (FROM_COUNTS if counted_other_code else ()) + (() if per_thread_code else PER_THREAD_CODE)
    ranked = sorted((f for k in kernels for f in _kernel_findings(k) if f[1]["code"] not in left_out),
                    key=lambda f: -f[0])
    chosen, seen = [], set()
    for _, f in ranked:
        key = (f["code"], f["params"]["kernel"])
        if key not in seen:
            seen.add(key)
            chosen.append(f)
    return chosen[:MAX_FINDINGS]
