"""The `profile` object of the result document (#16): shape, validator, the
reference GPU's occupancy model, and the metrics built from the counts.

One entry per profiled kernel launch. `source` says who measured: "emulator"
(counted by the emulation itself, kernels/profile/emu.py, plus the resources
ptxas reports for the reference GPU) or "ncu" (Nsight Compute on a GPU). A
metric nobody measured is null, never a guess. Findings (kernels/profile/findings.py)
are message codes with parameters, so the web says them in the reader's language.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from kernels.messages import MESSAGE_CODES
from kernels.profile.model import _number_or_null  # one rule for a count or null, the model's too
from kernels.profile.model import validate as validate_model

SOURCES = ("emulator", "ncu")
LIMITERS = ("registers", "shared_memory", "block_size", "blocks_per_sm", "none")
METRIC_KEYS = ("global_load_sectors_per_request", "global_load_ideal_sectors_per_request",
               "global_store_sectors_per_request", "global_store_ideal_sectors_per_request",
               "shared_wavefronts_per_request", "shared_ideal_wavefronts_per_request",
               "shared_bank_conflict_ways_max", "warp_execution_efficiency_pct", "global_lanes_active_pct",
               "atomics", "atomics_per_address_max", "atomics_per_address_mean",
               "dram_throughput_pct", "tensor_pipe_pct", "achieved_occupancy_pct")
RESOURCE_KEYS = ("registers_per_thread", "static_shared_bytes", "stack_frame_bytes", "spill_bytes")
# What the reader must know to read the counts (`caveats`, codes the web says in the reader's language):
# inline_ptx_fallback: the source has inline PTX, which the emulator never compiles; it counted the
#   code beside it (the #if branch for other targets), not the instructions a GPU runs;
# truncated: the counted run reached the runtime's cap of recorded accesses; the counts cover a part;
# counted_test_case: the emulator counted a small test case, not a sample of the benchmark's launch
#   (kernels/profile/run.py: launches that read each other's output, or blocks too big to sample).
CAVEATS = {
    "inline_ptx_fallback": "the source has inline PTX, which the emulator does not run: these counts are of "
                           "the code it runs instead (the branch for other targets), so findings about memory "
                           "access are not given",
    "truncated": "the counted run reached the emulator's cap of recorded accesses: the counts cover its first part",
    "counted_test_case": "the emulator counted a small test case, not the benchmark's size: access patterns "
                         "that appear only at the benchmark's size are not seen",
}


@dataclass(frozen=True)
class Gpu:
    """What bounds residency on one SM (CUDA occupancy calculator's model)."""

    name: str
    regs_per_sm: int
    smem_per_sm: int        # bytes usable by blocks
    smem_reserved_per_block: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    reg_alloc_unit: int     # registers are given to a warp in units of this many
    smem_alloc_unit: int


H100 = Gpu("H100", regs_per_sm=65536, smem_per_sm=228 * 1024, smem_reserved_per_block=1024,
           max_threads_per_sm=2048, max_blocks_per_sm=32, reg_alloc_unit=256, smem_alloc_unit=128)
# The cards kernels/profile/model.py can model (#26), from the CUDA C Programming Guide's table
# "Technical Specifications per Compute Capability": sm_90 (H100, H200) as above; sm_80 (A100):
# 164 KB of shared memory per SM, 2048 threads, 32 blocks; sm_89 (L4, RTX 4090): 100 KB, 1536
# threads, 24 blocks; 64 K registers everywhere, 1 KB reserved per block.
GPUS = {
    "H100": H100,
    "H200": dataclasses.replace(H100, name="H200"),
    "A100": dataclasses.replace(H100, name="A100", smem_per_sm=164 * 1024),
    "L4": dataclasses.replace(H100, name="L4", smem_per_sm=100 * 1024, max_threads_per_sm=1536,
                              max_blocks_per_sm=24),
    "RTX4090": dataclasses.replace(H100, name="RTX4090", smem_per_sm=100 * 1024, max_threads_per_sm=1536,
                                   max_blocks_per_sm=24),
}


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def occupancy(gpu: Gpu, threads_per_block: int, registers: int | None, smem_per_block: int) -> dict[str, Any]:
    """Theoretical occupancy (resident warps / the SM's maximum) and what limits it."""
    warps = max(1, -(-threads_per_block // 32))
    max_warps = gpu.max_threads_per_sm // 32
    limits = {"block_size": max_warps // warps, "blocks_per_sm": gpu.max_blocks_per_sm}
    if registers:
        per_warp = _round_up(registers * 32, gpu.reg_alloc_unit)
        limits["registers"] = (gpu.regs_per_sm // per_warp) // warps
    smem = _round_up(smem_per_block, gpu.smem_alloc_unit) + gpu.smem_reserved_per_block
    limits["shared_memory"] = gpu.smem_per_sm // smem
    # on a tie the block's shape is named: fewer registers or less shared memory would not help
    order = ("block_size", "blocks_per_sm", "registers", "shared_memory")
    limiter = min(order, key=lambda k: (limits.get(k, 1 << 30), order.index(k)))
    blocks = limits[limiter]
    pct = round(100.0 * blocks * warps / max_warps, 1)
    return {"theoretical_pct": pct, "blocks_per_sm": blocks, "limiter": "none" if pct >= 100.0 else limiter}


_ENTRY = re.compile(r"^ptxas info\s*: Compiling entry function '([^']+)' for 'sm_\d+a?'$")
_FRAME = re.compile(r"^ptxas\s+\.\s+(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads$")
_USED = re.compile(r"^ptxas info\s*: Used (\d+) registers(?:,.*?(\d+) bytes smem)?")


def parse_ptxas(log: str) -> dict[str, dict[str, int]]:
    """ptxas -v's report → resources per entry function (anchored lines: a learner's
    #warning cannot start a line with "ptxas")."""
    found: dict[str, dict[str, int]] = {}
    current = None
    for line in log.splitlines():
        if (m := _ENTRY.match(line)):
            current = found.setdefault(m[1], {k: 0 for k in RESOURCE_KEYS})
        elif current is not None and (m := _FRAME.match(line)):
            current["stack_frame_bytes"] = int(m[1])
            current["spill_bytes"] = int(m[2]) + int(m[3])
        elif current is not None and (m := _USED.match(line)):
            current["registers_per_thread"] = int(m[1])
            current["static_shared_bytes"] = int(m[2] or 0)
            current = None
    return found


def _ratio(num: int, den: int, digits: int = 2) -> float | None:
    return round(num / den, digits) if den else None


def metrics_from_counts(c: dict[str, int]) -> dict[str, Any]:
    """kernels/profile/emu.py's counts for one launch → the document's metrics."""
    metrics: dict[str, Any] = {k: None for k in METRIC_KEYS}
    metrics.update({
        "global_load_sectors_per_request": _ratio(c["gld_sectors"], c["gld_req"]),
        "global_load_ideal_sectors_per_request": _ratio(c["gld_ideal"], c["gld_req"]),
        "global_store_sectors_per_request": _ratio(c["gst_sectors"], c["gst_req"]),
        "global_store_ideal_sectors_per_request": _ratio(c["gst_ideal"], c["gst_req"]),
        "shared_wavefronts_per_request": _ratio(c["shd_wavefronts"], c["shd_req"]),
        "shared_ideal_wavefronts_per_request": _ratio(c["shd_ideal"], c["shd_req"]),
        "shared_bank_conflict_ways_max": c["shd_max_ways"] if c["shd_req"] else None,
        # every executed basic block, weighted by its code, short branches counted as a GPU
        # compiler predicates them (ncu's definition); memory instructions alone where no block was seen
        "warp_execution_efficiency_pct": _ratio(100 * c["work_pred_lanes"], 32 * c["work_inst"], 1)
        if c.get("work_inst") else _ratio(100 * c["code_pred_lanes"], 32 * c["code_inst"], 1)
        if c.get("code_inst") else _ratio(100 * c["active_lanes"], 32 * c["warp_inst"], 1),
        "global_lanes_active_pct": _ratio(100 * c["gmem_lanes"], 32 * c["gmem_inst"], 1),
        "atomics": c["atom_ops"],
        "atomics_per_address_max": c["atom_max"] if c["atom_ops"] else None,
        "atomics_per_address_mean": _ratio(c["atom_ops"], c["atom_addrs"]),
    })
    return metrics


def kernel_entry(name: str, grid: tuple[int, ...], block: tuple[int, ...], dynamic_shared_bytes: int,
                 resources: dict[str, int] | None, metrics: dict[str, Any], gpu: Gpu = H100) -> dict[str, Any]:
    threads = block[0] * block[1] * block[2]
    occ = None
    if resources is not None:
        occ = occupancy(gpu, threads, resources["registers_per_thread"],
                        resources["static_shared_bytes"] + dynamic_shared_bytes)
    return {"name": name, "grid": list(grid), "block": list(block), "dynamic_shared_bytes": dynamic_shared_bytes,
            "resources": resources, "occupancy": occ, "metrics": metrics}


def build(source: str, case: str, kernels: list[dict[str, Any]], findings: list[dict[str, Any]],
          gpu: Gpu = H100, note: str = "", caveats: list[str] | None = None) -> dict[str, Any]:
    if source not in SOURCES:
        raise ValueError(f"unknown profile source {source!r}")
    doc = {"source": source, "gpu": gpu.name, "case": case, "kernels": kernels, "findings": findings}
    if note:
        doc["note"] = note
    if caveats:
        doc["caveats"] = list(caveats)
    return doc


def validate(profile: Any) -> list[str]:
    """Everything wrong with a `profile` object ("profile." prefixed); empty when valid."""
    if not isinstance(profile, dict):
        return ["profile must be an object"]
    errors: list[str] = []
    need = {"source", "gpu", "case", "kernels", "findings"}
    if not need <= set(profile) or set(profile) - need - {"note", "estimate", "roofline", "caveats"}:
        return [f"profile needs exactly {', '.join(sorted(need))} (and optional note, estimate, roofline, caveats)"]
    caveats = profile.get("caveats", [])
    if not isinstance(caveats, list) or any(c not in CAVEATS for c in caveats) or len(set(caveats)) != len(caveats):
        errors.append(f"profile.caveats must be a list of distinct codes from {', '.join(CAVEATS)}")
    if profile["source"] not in SOURCES:
        errors.append("profile.source must be emulator or ncu")

    errors += validate_model(profile)
    if not isinstance(profile["kernels"], list):
        return errors + ["profile.kernels must be a list"]
    for i, k in enumerate(profile["kernels"]):
        errors += _validate_kernel(k, f"profile.kernels[{i}]")
    if not isinstance(profile["findings"], list) or len(profile["findings"]) > 3:
        return errors + ["profile.findings must be a list of at most 3"]
    for i, f in enumerate(profile["findings"]):
        ok = isinstance(f, dict) and {"code", "params", "message", "lesson"} <= set(f) \
            and f["code"] in MESSAGE_CODES and isinstance(f["params"], dict) \
            and set(f["params"]) == set(MESSAGE_CODES[f["code"]])
        if not ok:
            errors.append(f"profile.findings[{i}] needs a known code with its params, message, lesson")
    return errors


def _validate_kernel(k: Any, where: str) -> list[str]:
    keys = {"name", "grid", "block", "dynamic_shared_bytes", "resources", "occupancy", "metrics"}
    if not isinstance(k, dict) or set(k) != keys:
        return [f"{where} needs exactly {', '.join(sorted(keys))}"]
    errors = []
    metrics = k["metrics"]
    if not isinstance(metrics, dict) or set(metrics) != set(METRIC_KEYS) or \
            not all(_number_or_null(v) for v in metrics.values()):
        errors.append(f"{where}.metrics needs every metric key, each a number ≥ 0 or null")
    res = k["resources"]
    if res is not None and (not isinstance(res, dict) or set(res) != set(RESOURCE_KEYS)
                            or not all(isinstance(v, int) and v >= 0 for v in res.values())):
        errors.append(f"{where}.resources needs {', '.join(RESOURCE_KEYS)} as integers")
    occ = k["occupancy"]
    if occ is not None and (not isinstance(occ, dict) or occ.get("limiter") not in LIMITERS
                            or not _number_or_null(occ.get("theoretical_pct"))):
        errors.append(f"{where}.occupancy needs theoretical_pct and a known limiter")
    return errors


def _fmt(value: Any) -> str:
    return "—" if value is None else f"{value:g}"


def render(doc: dict[str, Any]) -> list[str]:
    """`kdojo judge`'s compact view of a document's profile (empty if none)."""
    p = doc.get("profile")
    if not p:
        return []
    lines = ["", f"  profile ({p['source']}, {p['case']}, occupancy for {p['gpu']}):"]
    lines += [f"    note: {CAVEATS[c]}" for c in p.get("caveats", []) if c in CAVEATS]
    for k in p["kernels"]:
        m, r, o = k["metrics"], k["resources"], k["occupancy"]
        lines.append(f"    {k['name']}: sectors/request load {_fmt(m['global_load_sectors_per_request'])}"
                     f" (ideal {_fmt(m['global_load_ideal_sectors_per_request'])}), store "
                     f"{_fmt(m['global_store_sectors_per_request'])} (ideal "
                     f"{_fmt(m['global_store_ideal_sectors_per_request'])}) · shared wavefronts/request "
                     f"{_fmt(m['shared_wavefronts_per_request'])} (ideal "
                     f"{_fmt(m['shared_ideal_wavefronts_per_request'])}) · lanes active "
                     f"{_fmt(m['warp_execution_efficiency_pct'])}% · atomics/address "
                     f"{_fmt(m['atomics_per_address_mean'])}")
        if r:
            lines.append(f"      {r['registers_per_thread']} registers/thread · {r['static_shared_bytes']} B static + "
                         f"{k['dynamic_shared_bytes']} B dynamic shared · {r['spill_bytes']} B spills · "
                         f"occupancy {_fmt(o['theoretical_pct'])}% (limit: {o['limiter']})")
    est = p.get("estimate")
    if est:
        acc = est["accuracy"].get("median_abs_error_pct")
        lines.append(f"    estimate ({est['gpu']} model, not measured): {est['time_ms']:.4g} ms at {est['case']} "
                     f"({est['bound']}-bound; counted at {est['counted_case']}, x{est['scale']:g} by {est['scaled_by']}; "
                     + (f"model error: median {acc:g}%)" if acc is not None else "model error: not measured)"))
    for f in p["findings"]:
        lines.append(f"    ! {f['message']}" + (f"  → {f['lesson']}" if f["lesson"] else ""))
    return lines
