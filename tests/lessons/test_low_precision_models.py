"""The cases of the low-precision exercises (bf16 and fp16 buffers) separate
right from wrong under the judge's tolerance: a model of a correct float kernel
passes every case, and a model of each named wrong solution fails at least one,
whatever the seed."""

from __future__ import annotations

import math

import numpy as np
from kernels.buffers import from_float64, to_float64

SEEDS = range(4)
ATTENTION_SEEDS = range(3)


def _fails(got, want, spec, scale=1.0) -> bool:
    """The judge's rule (kernels/check.py): |got - want| <= atol * scale + rtol * |want|, finite."""
    rtol, atol = spec["check"]["rtol"], spec["check"]["atol"]
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        ok = (np.abs(got - want) <= atol * np.asarray(scale) + rtol * np.abs(want)) & np.isfinite(got)
    return not bool(ok.all())


def _bf16(values) -> np.ndarray:
    """Round to bfloat16 and back (the judge's own conversion, kernels/buffers.py)."""
    return to_float64(from_float64(np.asarray(values, dtype=np.float64), "bfloat16"), "bfloat16")


def _rms_inputs(module, case, seed):
    inputs = module.generate(case, np.random.default_rng(seed))
    x, r, w = (to_float64(inputs[k], "bfloat16") for k in ("x", "residual", "weight"))
    return inputs, x, r, w


def _rms_model(x, r, w, bug=None, threads=256):
    """A float32 model of the kernels (one block of `threads` per row)."""
    h = (x.astype(np.float32) + r.astype(np.float32)).astype(np.float64)
    cols = h.shape[1]
    if bug == "bf16_accumulation":  # each thread's strided sum rounded to bf16 after every term
        hb = _bf16(h)
        q = np.zeros((h.shape[0], threads))
        for start in range(0, cols, threads):
            seg = hb[:, start:start + threads]
            q[:, :seg.shape[1]] = _bf16(q[:, :seg.shape[1]] + _bf16(seg * seg))
        ms = q.sum(axis=1, keepdims=True) / cols
    elif bug == "mean_instead_of_mean_square":
        ms = np.abs(h.mean(axis=1, keepdims=True))
    elif bug == "subtracts_the_mean":
        ms = ((h - h.mean(axis=1, keepdims=True)) ** 2).mean(axis=1, keepdims=True)
    else:
        ms = np.float32((h * h).mean(axis=1, keepdims=True))
    rstd = 1.0 / (np.sqrt(ms) + 1e-5) if bug == "eps_outside_sqrt" else 1.0 / np.sqrt(ms + 1e-5)
    centred = h - h.mean(axis=1, keepdims=True) if bug == "subtracts_the_mean" else h
    out = _bf16(centred * rstd * w)
    residual = r if bug == "residual_not_written_back" else _bf16(h)
    return {"out": out, "residual": residual}


def test_rmsnorm_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("14-rmsnorm", "fused_add")
    spec = kit.read_exercise_toml("14-rmsnorm", "fused_add")
    root = kit.exercise_dir("14-rmsnorm", "fused_add")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["bf16_accumulation", "eps_outside_sqrt", "mean_instead_of_mean_square",
                    "residual_not_written_back", "subtracts_the_mean"]
    cases = kit.cases("14-rmsnorm", "fused_add")
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in cases:
            inputs, x, r, w = _rms_inputs(module, case, seed)
            want = module.reference(inputs, case)
            good = _rms_model(x, r, w)
            assert not any(_fails(good[k], want[k], spec) for k in want), (seed, case)
            for bug in bugs:
                got = _rms_model(x, r, w, bug)
                caught[bug] |= any(_fails(got[k], want[k], spec) for k in want)
        assert all(caught.values()), (seed, caught)


def _rope_model(inputs, case, bug=None):
    t, d = int(case["tokens"]), int(case["head_dim"])
    half = d // 2
    offset = 0 if bug == "position_offset_ignored" else int(case["offset"])
    exponent = np.zeros(half) if bug == "integer_division_in_frequency" else -2.0 * np.arange(half) / d
    angle = (np.arange(t).reshape(t, 1) + offset) * np.float32(10000.0) ** exponent.astype(np.float32)
    cos, sin = np.cos(angle)[:, None, :], np.sin(angle)[:, None, :]
    if bug == "rotation_sign_flipped":
        sin = -sin
    out = {}
    for name in ("q", "k"):
        v = to_float64(inputs[name], "bfloat16")
        if name == "k" and bug == "k_not_rotated":
            out[name] = v
            continue
        if bug == "interleaved_pairs":
            x1, x2 = v[..., 0:2 * half:2], v[..., 1:2 * half:2]
            res = v.copy()
            res[..., 0:2 * half:2], res[..., 1:2 * half:2] = x1 * cos - x2 * sin, x2 * cos + x1 * sin
        else:
            x1, x2 = v[..., :half], v[..., half:]
            res = np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], axis=-1)
        out[name] = _bf16(res)
    return out


def test_rope_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("15-rope", "qk_inplace")
    spec = kit.read_exercise_toml("15-rope", "qk_inplace")
    root = kit.exercise_dir("15-rope", "qk_inplace")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["integer_division_in_frequency", "interleaved_pairs", "k_not_rotated",
                    "position_offset_ignored", "rotation_sign_flipped"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in kit.cases("15-rope", "qk_inplace"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want = module.reference(inputs, case)
            good = _rope_model(inputs, case)
            assert not any(_fails(good[k], want[k], spec) for k in want), (seed, case)
            for bug in bugs:
                got = _rope_model(inputs, case, bug)
                caught[bug] |= any(_fails(got[k], want[k], spec) for k in want)
        assert all(caught.values()), (seed, caught)


BN = 64  # keys per tile of lesson 17's reference (and of the models below)


def _logits(inputs, scale=True):
    q, k = inputs["Q"].astype(np.float64), inputs["K"].astype(np.float64)
    s = np.einsum("hid,hjd->hij", q, k)
    return s / math.sqrt(q.shape[2]) if scale else s


def _causal(s):
    return np.triu(np.ones(s.shape[-2:], dtype=bool), 1)


def _softmax_pv(logits, v, mask, subtract_max=True, dtype=np.float32):
    """Row softmax in `dtype` (float32: expf of ~100 overflows), then P·V."""
    logits = np.where(mask, -np.inf, logits).astype(dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        shift = logits.max(axis=-1, keepdims=True) if subtract_max else 0
        e = np.exp(logits - shift)
        p = e / e.sum(axis=-1, keepdims=True)
        return np.einsum("hij,hjd->hid", p.astype(np.float64), v.astype(np.float64))


def _tiled_online(inputs, causal, rescale=True, growth=8.0, tile=BN, fp16=True):
    """Lesson 17's reference loop in numpy: key tiles of `tile`, a running max moved
    only past `growth` (log2), P rounded to FP16, O rounded to FP16 at the end
    (with fp16=False: fused_rows' loop, chunks of 32 keys, no FP16 roundings)."""
    s = _logits(inputs) * math.log2(math.e)
    if causal:
        s = np.where(_causal(s), -np.inf, s)
    v = inputs["V"].astype(np.float64)
    bh, n, d = v.shape
    m = np.full((bh, n, 1), -np.inf)
    l = np.zeros((bh, n, 1))
    o = np.zeros((bh, n, d))
    for k0 in range(0, n, tile):
        chunk = s[:, :, k0:k0 + tile]
        mx = chunk.max(axis=-1, keepdims=True)
        grow = mx > m + growth
        with np.errstate(invalid="ignore"):
            alpha = np.where(grow, np.exp2(m - mx), 1.0)
        if not rescale:
            alpha = np.where(np.isneginf(m), 0.0, 1.0)
        m = np.where(grow, mx, m)
        p = np.exp2(chunk - m)
        if fp16:
            p = p.astype(np.float16).astype(np.float64)
        l = l * alpha + p.sum(axis=-1, keepdims=True)
        o = o * alpha + np.einsum("hij,hjd->hid", p, v[:, k0:k0 + tile])
    return (o / l).astype(np.float16 if fp16 else np.float32)


def _each_case(kit, folder, name):
    module = kit.load_reference(folder, name)
    spec = kit.read_exercise_toml(folder, name)
    for seed in ATTENTION_SEEDS:
        for case in kit.cases(folder, name):
            inputs = module.generate(case, np.random.default_rng([seed, case["S"]]))
            yield case, inputs, module.reference(inputs, case)["O"], spec


def test_three_kernel_cases_catch_every_named_bug(kit):
    caught = {"max_not_subtracted": 0, "missing_scale": 0, "missing_causal_mask": 0}
    runs = 0
    for case, inputs, want, spec in _each_case(kit, "16-attention", "three_kernels"):
        runs += 1
        s = _logits(inputs)
        mask = _causal(s) if case["causal"] else np.zeros(s.shape[-2:], dtype=bool)
        v = inputs["V"]
        assert not _fails(_softmax_pv(s, v, mask), want, spec), f"the float32 model must pass: {case}"
        caught["max_not_subtracted"] += _fails(_softmax_pv(s, v, mask, subtract_max=False), want, spec)
        caught["missing_scale"] += _fails(_softmax_pv(_logits(inputs, scale=False), v, mask), want, spec)
        caught["missing_causal_mask"] += _fails(_softmax_pv(s, v, np.zeros_like(mask)), want, spec)
    assert caught["max_not_subtracted"] == runs, "every case overflows expf without the max"
    assert caught["missing_scale"] >= runs // 2 and caught["missing_causal_mask"] >= len(ATTENTION_SEEDS)
    cases = kit.cases("16-attention", "three_kernels")
    assert any(c["causal"] and c["S"] >= 2 for c in cases), "masked_tail_not_zeroed needs a masked tail"
    assert any(c["D"] % 16 for c in cases) and any(c["S"] % 16 for c in cases), "partial tiles"


def test_fused_row_cases_catch_every_named_bug(kit):
    caught = {"unrescaled_running_sum": 0, "missing_causal_mask": 0}
    for case, inputs, want, spec in _each_case(kit, "16-attention", "fused_rows"):
        causal = bool(case["causal"])
        online = dict(growth=0.0, tile=32, fp16=False)
        assert not _fails(_tiled_online(inputs, causal, **online), want, spec), case
        caught["unrescaled_running_sum"] += _fails(_tiled_online(inputs, causal, rescale=False, **online), want, spec)
        caught["missing_causal_mask"] += _fails(_tiled_online(inputs, False, **online), want, spec) if causal else 0
    assert min(caught.values()) >= len(ATTENTION_SEEDS), caught
    assert any(c["S"] > 64 + 32 for c in kit.cases("16-attention", "fused_rows")), "several 32-key chunks"


def test_flash_cases_catch_every_named_bug(kit):
    caught = {"max_not_subtracted": 0, "missing_scale": 0, "missing_causal_mask": 0,
              "unrescaled_running_sum": 0}
    runs = 0
    for case, inputs, want, spec in _each_case(kit, "17-flash-attention", "forward"):
        runs += 1
        causal = bool(case["causal"])
        assert not _fails(_tiled_online(inputs, causal), want, spec), f"the tiled FP16 model must pass: {case}"
        assert not _fails(_tiled_online(inputs, causal, growth=0.0), want, spec), "rescale_every_tile"
        s = _logits(inputs)
        mask = _causal(s) if causal else np.zeros(s.shape[-2:], dtype=bool)
        v = inputs["V"]
        caught["max_not_subtracted"] += _fails(_softmax_pv(s, v, mask, subtract_max=False), want, spec)
        caught["missing_scale"] += _fails(_softmax_pv(_logits(inputs, scale=False), v, mask), want, spec)
        caught["missing_causal_mask"] += _fails(_tiled_online(inputs, False), want, spec) if causal else 0
        caught["unrescaled_running_sum"] += _fails(_tiled_online(inputs, causal, rescale=False), want, spec)
    assert caught["max_not_subtracted"] == runs
    assert min(caught.values()) >= len(ATTENTION_SEEDS), caught
    cases = kit.cases("17-flash-attention", "forward")
    # tail_rows_not_zeroed: a case whose only key tile is partial, so its unwritten V rows
    # still hold the poison every backend fills shared memory with
    assert any(c["S"] < BN for c in cases), "tail_rows_not_zeroed needs a sequence shorter than one key tile"
    assert {c["D"] for c in cases} == {64, 128} and any(c["S"] > 128 and c["causal"] for c in cases)


def _ce_model(inputs, bug=None):
    """A float32 model of the kernels (one block per row)."""
    x = inputs["logits"]
    t = inputs["targets"].astype(np.int64)
    rows = x.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):
        m = np.zeros((rows, 1), np.float32) if bug == "max_not_subtracted" else x.max(axis=1, keepdims=True)
        e = np.exp(x - m)
        s = e.sum(axis=1, keepdims=True, dtype=np.float32)
        target = x.reshape(-1)[t] if bug == "target_not_offset_by_row" else x[np.arange(rows), t]
        loss = (m + np.log(s))[:, 0] - target
        p = e / s
        if bug != "gradient_missing_one_hot":
            p[np.arange(rows), t] -= 1.0
        grad = p if bug == "gradient_not_divided_by_rows" else p / np.float32(rows)
    return {"loss": loss, "grad": grad}


def test_cross_entropy_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("18-cross-entropy", "fused")
    spec = kit.read_exercise_toml("18-cross-entropy", "fused")
    root = kit.exercise_dir("18-cross-entropy", "fused")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["gradient_missing_one_hot", "gradient_not_divided_by_rows", "max_not_subtracted",
                    "target_not_offset_by_row"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in kit.cases("18-cross-entropy", "fused"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want, scale = module.reference(inputs, case), module.error_scale(inputs, case)
            good = _ce_model(inputs)
            assert not any(_fails(good[k], want[k], spec, scale[k]) for k in want), (seed, case)
            for bug in bugs:
                got = _ce_model(inputs, bug)
                caught[bug] |= any(_fails(got[k], want[k], spec, scale[k]) for k in want)
        assert all(caught.values()), (seed, caught)


def _topk_model(x, k, bug=None):
    """Sorted (values, indices) per row as each named kernel would write them."""
    cols = np.broadcast_to(np.arange(x.shape[1]), x.shape)
    if bug == "ties_to_higher_column":
        idx = np.lexsort((-cols, -x.astype(np.float64)), axis=1)
    elif bug == "sign_ignored_in_key":  # raw bits as unsigned, larger first; ties by lower column
        idx = np.lexsort((cols, -x.view(np.uint32).astype(np.int64)), axis=1)
    else:
        idx = np.lexsort((cols, -x.astype(np.float64)), axis=1)
    idx = idx[:, :k].astype(np.float64)
    values = np.take_along_axis(x, idx.astype(np.int64), axis=1).astype(np.float64)
    if bug == "kth_element_dropped":
        values[:, -1] = idx[:, -1] = np.nan
    return {"values": values, "indices": idx}


def test_topk_cases_catch_every_named_bug_and_pass_the_kernel(kit):
    module = kit.load_reference("19-topk", "rows")
    spec = kit.read_exercise_toml("19-topk", "rows")
    root = kit.exercise_dir("19-topk", "rows")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    # the race is no value bug: the emulator's checker and the GPU's interleaving catch it (verdict tests)
    assert bugs == ["kth_element_dropped", "racy_candidate_counter", "sign_ignored_in_key",
                    "ties_to_higher_column"]
    modelled = [b for b in bugs if b != "racy_candidate_counter"]
    for seed in SEEDS:
        caught = dict.fromkeys(modelled, False)
        for case in kit.cases("19-topk", "rows"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want = module.reference(inputs, case)
            good = _topk_model(inputs["logits"], int(case["k"]))
            assert not any(_fails(good[k], want[k], spec) for k in want), (seed, case)
            for bug in modelled:
                got = _topk_model(inputs["logits"], int(case["k"]), bug)
                caught[bug] |= any(_fails(got[k], want[k], spec) for k in want)
        assert all(caught.values()), (seed, caught)


def _argmax_model(x, bug=None):
    """(index, value) per row as each named argmax kernel would write them."""
    rows, vocab = x.shape
    threads = min(1024, max(32, 1 << max(0, math.ceil(math.log2(-(-vocab // 16))))))
    idx = np.empty(rows, np.int64)
    for r, row in enumerate(x):
        if bug == "ties_to_higher_column":
            idx[r] = vocab - 1 - int(np.argmax(row[::-1]))
        elif bug == "only_warp_zero_merged":  # columns whose thread is in warp 0
            cols = np.flatnonzero(np.arange(vocab) % threads < 32)
            idx[r] = cols[int(np.argmax(row[cols]))]
        elif bug == "max_started_at_zero" and row.max() < 0:
            idx[r] = 2**31 - 1  # the column never set
        else:
            idx[r] = int(np.argmax(row))
    value = np.array([0.0 if i >= vocab else x[r, i] for r, i in enumerate(idx)])
    return {"index": idx.astype(np.float64), "value": value}


def test_argmax_cases_catch_every_named_bug_and_pass_the_kernel(kit):
    module = kit.load_reference("19-topk", "argmax")
    spec = kit.read_exercise_toml("19-topk", "argmax")
    root = kit.exercise_dir("19-topk", "argmax")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["max_started_at_zero", "only_warp_zero_merged", "ties_to_higher_column"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in kit.cases("19-topk", "argmax"):
            x = module.generate(case, np.random.default_rng(seed))["logits"]
            want = module.reference({"logits": x}, case)
            assert (x.max(axis=1)[:, None] == x).sum(axis=1).min() >= 2, "the maximum twice in every row"
            assert x[0].max() < 0 and want["index"].min() >= 1, "a negative row; never column 0"
            good = _argmax_model(x)
            assert not any(_fails(good[k], want[k], spec) for k in want), (seed, case)
            for bug in bugs:
                got = _argmax_model(x, bug)
                caught[bug] |= any(_fails(got[k], want[k], spec) for k in want)
        assert all(caught.values()), (seed, caught)


def _gemv_model(inputs, case, bug=None):
    """A model of the kernels: float32 products, one warp (lanes k % 32) per row."""
    w = inputs["W"].astype(np.float64)
    N, K = w.shape
    if bug == "unsigned_weights":
        w = np.where(w < 0, w + 256.0, w)
    groups = (K + 127) // 128
    flat = inputs["scales"].astype(np.float64).reshape(-1)
    per_row = K // 128 if bug == "groups_per_row_rounded_down" else groups
    index = np.arange(N).reshape(N, 1) * per_row + np.arange(K).reshape(1, K) // 128
    terms = w * flat[index] * to_float64(inputs["x"], "bfloat16")
    if bug == "missing_row_tail":
        terms[:, (K // 128) * 128:] = 0.0
    if bug == "warp_sum_misses_half_the_lanes":
        terms[:, (np.arange(K) % 32) >= 16] = 0.0
    return {"y": _bf16(terms.astype(np.float32).sum(axis=1, dtype=np.float32))}


def test_gemv_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("20-quant-gemv", "int8_gemv")
    spec = kit.read_exercise_toml("20-quant-gemv", "int8_gemv")
    root = kit.exercise_dir("20-quant-gemv", "int8_gemv")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["groups_per_row_rounded_down", "missing_row_tail", "unsigned_weights",
                    "warp_sum_misses_half_the_lanes"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in kit.cases("20-quant-gemv", "int8_gemv"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want, scale = module.reference(inputs, case)["y"], module.error_scale(inputs, case)["y"]
            assert not _fails(_gemv_model(inputs, case)["y"], want, spec, scale), (seed, case)
            for bug in bugs:
                caught[bug] |= _fails(_gemv_model(inputs, case, bug)["y"], want, spec, scale)
        assert all(caught.values()), (seed, caught)


def _silu32(g):
    with np.errstate(over="ignore"):
        return g / (np.float32(1) + np.exp(-g))


def _glu_model(inputs, case, bug=None):
    """A float32 model of the kernels, rows [gate | up]."""
    hidden, rows = int(case["hidden"]), int(case["rows"])
    flat = to_float64(inputs["gate_up"], "bfloat16").astype(np.float32).reshape(-1)
    stride = hidden if bug == "row_stride_hidden_not_two_hidden" else 2 * hidden
    index = np.arange(rows).reshape(rows, 1) * stride + np.arange(hidden).reshape(1, hidden)
    gate, up = flat[index], flat[index + hidden]
    if bug == "gate_and_up_swapped":
        gate, up = up, gate
    if int(case["act"]) == 0:
        if bug == "sigmoid_overflows_to_nan":
            with np.errstate(over="ignore", invalid="ignore"):
                act = gate * np.exp(gate) / (np.float32(1) + np.exp(gate))
        else:
            act = _silu32(gate)
    elif bug == "tanh_gelu_instead_of_erf":
        act = 0.5 * gate * (1 + np.tanh(np.float32(0.7978845608) * (gate + np.float32(0.044715) * gate ** 3)))
    else:
        erf = np.vectorize(math.erf, otypes=[np.float64])
        act = (0.5 * gate * (1 + erf(gate.astype(np.float64) / math.sqrt(2.0)))).astype(np.float32)
    return {"out": _bf16(act.astype(np.float64) * up)}


def test_glu_cases_catch_every_named_bug_and_pass_a_float_kernel(kit):
    module = kit.load_reference("21-gated-mlp", "glu")
    spec = kit.read_exercise_toml("21-gated-mlp", "glu")
    root = kit.exercise_dir("21-gated-mlp", "glu")
    bugs = sorted(p.stem for p in (root / "solutions/wrong").glob("*.cu"))
    assert bugs == ["gate_and_up_swapped", "row_stride_hidden_not_two_hidden", "sigmoid_overflows_to_nan",
                    "tanh_gelu_instead_of_erf"]
    for seed in SEEDS:
        caught = dict.fromkeys(bugs, False)
        for case in kit.cases("21-gated-mlp", "glu"):
            inputs = module.generate(case, np.random.default_rng(seed))
            want = module.reference(inputs, case)["out"]
            assert not _fails(_glu_model(inputs, case)["out"], want, spec), (seed, case)
            for bug in bugs:
                caught[bug] |= _fails(_glu_model(inputs, case, bug)["out"], want, spec)
        assert all(caught.values()), (seed, caught)
