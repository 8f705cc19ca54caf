"""The emulator's estimated time (#16, kernels/profile_model.py) on hand-made counts with known answers."""

import pytest

from kernels import profile as prof
from kernels import profile_model as model
from kernels.catalog import find_exercise
from kernels.profile_emu import COUNT_KEYS

H100 = model.GPUS["H100"]


def counts(**given):
    c = {k: 0 for k in COUNT_KEYS}
    c.update(given)
    return c


@pytest.fixture(scope="module")
def block_sum():
    exercise = find_exercise("reduction.block_sum")
    case = next(c for c in exercise.tests if c.env["N"] == 65536)
    return exercise, case


def test_a_pure_read_is_its_distinct_bytes_over_the_copy_bandwidth(block_sum):
    exercise, case = block_sum
    # 65536 floats read once, coalesced: 8192 sectors of 32 bytes, 2048 warp loads of 4 sectors
    c = counts(gld_req=2048, gld_sectors=8192, gld_ideal=8192, gld_unique=8192, warp_inst=2048)
    est = model.estimate(exercise, "", case, [c], [{"blocks_per_sm": 8}], {})
    assert est["label"] == "estimate" and est["gpu"] == "H100"
    assert est["case"] == "n=268435456" and est["counted_case"] == "n=65536"
    assert est["scale"] == 4096 and est["scaled_by"] == "bytes"  # 4·2^28 bytes ÷ 4·2^16
    dram_s = 32 * 8192 * 4096 / H100.dram_bps  # 1 GiB at 3.0 TB/s
    assert est["terms_ms"]["dram"] == pytest.approx(dram_s * 1e3, rel=1e-4)
    assert est["bound"] == "dram"
    assert est["time_ms"] == pytest.approx((dram_s + H100.launch_s) * 1e3, rel=1e-4)


def test_the_estimate_grows_with_the_bytes_moved(block_sum):
    exercise, case = block_sum
    times = [model.estimate(exercise, "", case, [counts(gld_req=2048, gld_sectors=s, gld_unique=s, warp_inst=2048)],
                            [{"blocks_per_sm": 8}], {})["time_ms"] for s in (8192, 16384, 65536)]
    assert times[0] < times[1] < times[2]


def test_uncoalesced_requests_cost_l2_time_beyond_the_distinct_bytes(block_sum):
    exercise, case = block_sum
    coalesced = counts(gld_req=2048, gld_sectors=8192, gld_unique=8192, warp_inst=2048)
    strided = counts(gld_req=2048, gld_sectors=2048 * 32, gld_unique=8192, warp_inst=2048)  # 32 sectors/request
    a = model.estimate(exercise, "", case, [coalesced], [None], {})
    b = model.estimate(exercise, "", case, [strided], [None], {})
    assert b["terms_ms"]["dram"] == a["terms_ms"]["dram"]
    assert b["bound"] == "l2" and b["time_ms"] > 2 * a["time_ms"]


def test_atomics_on_one_address_serialise(block_sum):
    exercise, case = block_sum
    # one atomic per block into out[0]: 256 at the counted size, 2^20 at the benchmark size
    c = counts(gld_req=2048, gld_sectors=8192, gld_unique=8192, warp_inst=2048, gatom_ops=256, gatom_addrs=1,
               gatom_max=256)
    est = model.estimate(exercise, "", case, [c], [None], {})
    assert est["terms_ms"]["atomics"] == pytest.approx(256 * 4096 * H100.atomic_same_address_s * 1e3, rel=1e-4)


def test_a_small_grid_uses_a_fraction_of_the_gpu():
    assert model.parallelism(10_000, 256, 8, H100) == 1.0
    assert model.parallelism(1, 256, 8, H100) == pytest.approx(8 / (132 * model.WARPS_TO_SATURATE))


def test_the_estimate_and_roofline_validate_and_print(block_sum):
    exercise, case = block_sum
    c = counts(gld_req=2048, gld_sectors=8192, gld_unique=8192, warp_inst=2048)
    est = model.estimate(exercise, "", case, [c], [None], {})
    roof = model.roofline(exercise, {}, est["time_ms"], "estimate")
    doc = prof.build("emulator", case.label, [], [])
    doc.update(estimate=est, roofline=roof)
    assert prof.validate(doc) == []
    point = roof["points"][0]
    assert point["who"] == "attempt" and point["kind"] == "estimate"
    assert point["bytes"] == 4 * 2**28 and point["intensity"] is None  # no flop model
    assert point["gbs"] == pytest.approx(4 * 2**28 / (est["time_ms"] * 1e-3) / 1e9, rel=1e-3)
    assert roof["bandwidth_gbs"] == 3000.0
    text = "\n".join(prof.render({"profile": doc}))
    assert "estimate (H100 model, not measured)" in text and "n=268435456" in text
    bad = dict(doc, estimate=dict(est, label="measured"))
    assert prof.validate(bad)


def test_a_flop_model_puts_a_compute_floor_under_the_time():
    from kernels.compile import compile_submission

    exercise = find_exercise("gemm-epilogue.fp32")
    case = exercise.tests[-1]
    constants = compile_submission(exercise.reference_cu_path.read_text(), exercise, None).constants
    est = model.estimate(exercise, "", case, [counts(warp_inst=1)], [None], constants)
    assert est["scaled_by"] == "flops" and est["bound"] == "compute"
    assert est["case"].startswith("4096x4096x4096")  # the benchmark case with the most flops
    flops = 2 * 4096**3
    assert est["time_ms"] >= flops / H100.fp32_flops * 1e3
    tensor = model.estimate(exercise, "wmma::mma_sync(c, a, b, c);", case, [counts(warp_inst=1)], [None], constants)
    assert tensor["terms_ms"]["compute"] == pytest.approx(flops / H100.tensor_flops * 1e3, rel=1e-4)
