"""The emulator's estimated time (#16, kernels/profile/model.py) on hand-made counts with known answers."""

import pytest

from kernels.profile import doc as prof
from kernels.profile import model
from kernels.exercises import find_exercise
from kernels.profile.emu import COUNT_KEYS

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
    # each resident warp's loads one after another (132 SMs x 8 blocks x 8 warps), a DRAM latency each
    waits_s = 2048 * 4096 / (H100.sms * 8 * 8) * model.LOAD_LATENCY_S
    assert est["terms_ms"]["latency"] == pytest.approx(waits_s * 1e3, rel=1e-4)
    # but block_sum launches a block per 256 elements: 2^20 blocks, and an SM starts one per 80 ns
    # (bench/profile_micro.py), which takes longer than the 1 GiB read
    blocks_s = 2**20 / H100.sms * H100.block_s
    assert est["terms_ms"]["blocks"] == pytest.approx(blocks_s * 1e3, rel=1e-4) and blocks_s > dram_s
    assert est["bound"] == "blocks"
    assert est["time_ms"] == pytest.approx((blocks_s + H100.launch_s) * 1e3, rel=1e-4)


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
    # L2 serves each distinct sector once and L2_REPEAT_FRACTION of the 7 repeats of each (L1 the rest)
    l2_sectors = 8192 + model.L2_REPEAT_FRACTION * (2048 * 32 - 8192)
    assert b["terms_ms"]["l2"] == pytest.approx(32 * l2_sectors * 4096 / H100.l2_bps * 1e3, rel=1e-4)
    assert a["terms_ms"]["l2"] == pytest.approx(32 * 8192 * 4096 / H100.l2_bps * 1e3, rel=1e-4)
    assert b["bound"] == "l2" and b["time_ms"] > a["time_ms"]


def test_atomics_on_one_address_serialise(block_sum):
    exercise, case = block_sum
    # one atomic per block into out[0]: 256 at the counted size, 2^20 at the benchmark size
    c = counts(gld_req=2048, gld_sectors=8192, gld_unique=8192, warp_inst=2048, gatom_ops=256, gatom_addrs=1,
               gatom_max=256)
    est = model.estimate(exercise, "", case, [c], [None], {})
    assert est["terms_ms"]["atomics"] == pytest.approx(256 * 4096 * H100.atomic_same_address_s * 1e3, rel=1e-4)


def test_a_fixed_grids_atomics_do_not_grow_with_the_work():
    # full_sum: 1024 blocks x 256 threads at every size, one atomicAdd per block into out[0]. At the
    # counted n = 1,048,579 and at 2^28 alike: 1024 atomics on one address, not 256 times as many.
    exercise = find_exercise("reduction.full_sum")
    case = next(c for c in exercise.tests if c.env["N"] == 1048579)
    one_per_block = counts(gld_req=8192, gld_sectors=131072, gld_unique=131072, warp_inst=8192 + 1024,
                           gatom_ops=1024, gatom_addrs=1, gatom_max=1024)
    est = model.estimate(exercise, "", case, [one_per_block], [None], {})
    assert est["scale"] == pytest.approx(2**28 / 1048579, rel=1e-4)
    assert est["terms_ms"]["atomics"] == pytest.approx(1024 * H100.atomic_same_address_s * 1e3, abs=1e-6)  # 6 decimals
    assert est["bound"] == "dram"
    # more atomics than threads (a grid-stride loop adding every element): they grow with the work
    per_element = dict(one_per_block, gatom_ops=1048579, gatom_max=1048579)
    est = model.estimate(exercise, "", case, [per_element], [None], {})
    assert est["terms_ms"]["atomics"] == pytest.approx(
        1048579 * est["scale"] * H100.atomic_same_address_s * 1e3, rel=1e-3)


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
    assert point["bytes"] == 4 * 2**28 and point["flops"] == 2**28  # block_sum's models: 4N bytes, N adds
    assert point["intensity"] == 0.25 and roof["bytes_from"] == "model" and roof["flops_from"] == "model"
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


def test_without_a_byte_model_the_roofline_takes_the_counted_dram_traffic():
    """GEMM has a flop model and no byte model: the emulator's distinct sectors give the bytes,
    scaled like the buffers (N², not like the flops, N³), so the point has an intensity."""
    from kernels.compile import compile_submission
    from kernels.plan import env_for

    exercise = find_exercise("gemm-epilogue.fp32")
    constants = compile_submission(exercise.reference_cu_path.read_text(), exercise, None).constants
    case = exercise.tests[-1]
    big = model.largest_case(exercise, constants)
    grow = model.footprint_bytes(exercise, env_for(big, constants)) / model.footprint_bytes(exercise, env_for(case, constants))
    c = counts(gld_req=1000, gld_sectors=9000, gld_unique=3000, gst_req=100, gst_sectors=400, gst_unique=400,
               warp_inst=1100)
    est = model.estimate(exercise, "", case, [c], [None], constants)
    assert est["dram_bytes"] == round(32 * 3400 * grow)
    assert grow < est["scale"] / 10  # the footprint grows far less than the flops
    roof = model.roofline(exercise, constants, est["time_ms"], "estimate", traffic_bytes=est["dram_bytes"],
                          traffic_from="emulator")
    point = roof["points"][0]
    assert roof["bytes_from"] == "emulator" and point["bytes"] == est["dram_bytes"]
    assert point["flops"] == 2 * 4096**3 and point["intensity"] == pytest.approx(2 * 4096**3 / est["dram_bytes"], rel=1e-3)
    # a byte model, where there is one, wins over counted traffic
    exercise = find_exercise("reduction.block_sum")
    roof = model.roofline(exercise, {}, 1.0, "estimate", traffic_bytes=123.0, traffic_from="emulator")
    assert roof["bytes_from"] == "model" and roof["points"][0]["bytes"] == 4 * 2**28
    # neither: no intensity, and nothing invented
    roof = model.roofline(find_exercise("coalescing.vector_copy"), {}, 1.0, "estimate")
    assert roof["flops_from"] is None and roof["points"][0]["intensity"] is None


def test_the_gpu_roofline_uses_the_benchmark_time_and_ncus_dram_bytes():
    from kernels.compile import compile_submission
    from kernels.plan import env_for
    from kernels.profile.run import gpu_roofline

    exercise = find_exercise("gemm-epilogue.fp32")
    constants = compile_submission(exercise.reference_cu_path.read_text(), exercise, None).constants
    big = model.largest_case(exercise, constants)
    index = exercise.benchmark.cases.index(big)
    sizes = [{"ms": 100.0 + i, "baselines": {"framework": 50.0 + i}} for i in range(len(exercise.benchmark.cases))]
    profiled = exercise.tests[-1]
    roof = gpu_roofline(exercise, constants, profiled, 1e6, {"sizes": sizes})
    grow = model.footprint_scale(exercise, env_for(profiled, constants), env_for(big, constants))
    attempt, framework = roof["points"][0], roof["points"][-1]
    assert attempt["kind"] == "measured" and attempt["time_ms"] == 100.0 + index
    assert framework["who"] == "framework" and framework["time_ms"] == 50.0 + index
    assert roof["bytes_from"] == "ncu" and attempt["bytes"] == round(1e6 * grow)
    assert attempt["gflops"] == pytest.approx(2 * 4096**3 / ((100.0 + index) * 1e-3) / 1e9, rel=1e-3)
    # a benchmark cut short of the largest case, or none: no roofline
    assert gpu_roofline(exercise, constants, profiled, 1e6, {"sizes": sizes[:index]}) is None
    assert gpu_roofline(exercise, constants, profiled, 1e6, None) is None


def test_a_truncated_launch_is_scaled_up_by_the_share_it_covers(block_sum):
    """The runtime records at most 2^21 accesses per launch; `accesses` says how many it saw, so
    counts covering a quarter of the launch are multiplied by 4 (distinct sectors capped by the
    buffers)."""
    exercise, case = block_sum
    whole = counts(gld_req=2048, gld_sectors=8192, gld_unique=8192, warp_inst=2048, active_lanes=65536,
                   accesses=65536)
    quarter = counts(gld_req=512, gld_sectors=2048, gld_unique=2048, warp_inst=512, active_lanes=16384,
                     accesses=65536, truncated=1)
    assert model.coverage(quarter) == 0.25 and model.coverage(whole) == 1.0
    a = model.estimate(exercise, "", case, [whole], [None], {})
    b = model.estimate(exercise, "", case, [quarter], [None], {})
    for term in ("dram", "l2", "issue"):
        assert b["terms_ms"][term] == pytest.approx(a["terms_ms"][term], abs=2e-6)
    assert b["dram_bytes"] == a["dram_bytes"]
    # more distinct sectors than the buffers hold cannot be: capped at in + out (65536 floats + the sum)
    over = dict(quarter, gld_unique=8192)
    c = model.estimate(exercise, "", case, [over], [None], {})
    cap = model.footprint_bytes(exercise, case.env) / 32
    assert 8192 < cap < 8200
    # (the launch grows as far as its buffers do: `in` 4096 times, the one-float sum not at all)
    grow = (cap - 1 / 8 + 1 / 8 / 4096) * 4096 / cap
    assert c["terms_ms"]["dram"] == pytest.approx(32 * cap * grow / H100.dram_bps * 1e3, abs=2e-6)


def test_inline_ptx_tensor_code_is_estimated_by_its_roofline_bound():
    """The emulator runs an mma.sync/wgmma kernel's plain fallback: its counted L2, shared and issue
    terms are dropped and the estimate says so."""
    from kernels.compile import compile_submission

    exercise = find_exercise("gemm-epilogue.wmma_fp16")
    source = (exercise.folder / "solutions/correct/hopper_wgmma.cu").read_text()
    constants = compile_submission(source, exercise, None).constants
    heavy = counts(gld_req=10**6, gld_sectors=32 * 10**6, gld_unique=4000, warp_inst=10**6, shd_wavefronts=10**6)
    est = model.estimate(exercise, source, exercise.tests[-1], [heavy], [None], constants)
    assert model.uses_ptx_tensor_cores(source) and "fallback" in est["note"]
    assert est["bound"] in ("compute", "dram", "blocks")
    assert est["time_ms"] == pytest.approx(max(est["terms_ms"]["compute"], est["terms_ms"]["dram"],
                                               est["terms_ms"]["blocks"]) + est["terms_ms"]["launch"], rel=1e-3)
    wmma = (exercise.folder / "reference.cu").read_text()
    assert model.uses_tensor_cores(wmma) and not model.uses_ptx_tensor_cores(wmma)
    # a comment that names wgmma is no inline PTX: every counted term stays
    commented = wmma + "\n// next: wgmma.mma_async with TMA, as hopper_wgmma.cu does\n"
    assert not model.uses_ptx_tensor_cores(commented)
    assert "note" not in model.estimate(exercise, commented, exercise.tests[-1], [heavy], [None], constants)


# Rereads and the L2's size (#26): a block that reads its row again finds it in L2 only while every
# block resident beside it has touched no more than the L2 holds since.

def _bench_and_counted(exercise_id: str, counted: str):
    exercise = find_exercise(exercise_id)
    return exercise, next(c for c in exercise.benchmark.cases if c.label == counted)


def test_a_row_read_twice_comes_from_dram_when_the_resident_rows_outgrow_l2():
    # softmax counted at 8192 x 4096 (256 threads a block), estimated at 4096 x 50,304: a block
    # of 1024 threads per 201 KB row, two resident per SM (2048 threads), 264 blocks x (the row
    # read + the row written, 402 KB) = 106 MB > 50 MB of L2: the second read is DRAM's again
    exercise, case = _bench_and_counted("row-reductions.softmax", "8192x4096")
    row = 8192 * 4096 // 8  # sectors of x (and of y)
    one_pass = counts(gld_req=row // 4, gld_sectors=row, gld_ideal=row, gld_unique=row, gst_req=row // 4,
                      gst_sectors=row, gst_ideal=row, gst_unique=row, warp_inst=row // 2)
    two_pass = dict(one_pass, gld_req=row // 2, gld_sectors=2 * row, gld_ideal=2 * row)
    three_pass = dict(one_pass, gld_req=3 * row // 4, gld_sectors=3 * row, gld_ideal=3 * row)
    scale = (8 * 4096 * 50304) / (8 * 8192 * 4096)  # the byte model's ratio: work and footprint alike
    est = {name: model.estimate(exercise, "", case, [c], [{"blocks_per_sm": 8}], {})
           for name, c in (("one", one_pass), ("two", two_pass), ("three", three_pass))}
    assert est["one"]["scale"] == pytest.approx(scale, abs=1e-3)
    for name, reads in (("one", 1), ("two", 2), ("three", 3)):
        dram_s = 32 * (reads + 1) * row * scale / H100.dram_bps  # every read of x, and y once
        assert est[name]["terms_ms"]["dram"] == pytest.approx(dram_s * 1e3, rel=1e-6), name
        assert est[name]["bound"] == "dram"
    assert est["one"]["time_ms"] < est["two"]["time_ms"] < est["three"]["time_ms"]
    # the occupancy said 8 blocks of the counted 256 threads; at 1024 threads an SM holds 2
    assert model.resident_blocks(4096, 1024, 8, H100) == 2 * H100.sms


def test_rereads_stay_l2_hits_while_the_resident_blocks_fit_in_it():
    # 64 blocks of 1024 threads, each reading its 32 KiB twice and writing 32 KiB: 4 MiB in all, in
    # L2 at once; the same blocks with 16 times as much (64 MiB resident together) miss
    fits = counts(gld_req=2**16, gld_sectors=2**17, gld_ideal=2**17, gld_unique=2**16, gst_sectors=2**16,
                  gst_unique=2**16, warp_inst=2**17)
    big = {k: v * 16 for k, v in fits.items()}
    assert model.missed_rereads(fits, 64, 1024, 2, H100, 1.0) == 0
    assert model.missed_rereads(big, 64, 1024, 2, H100, 1.0) == 2**20
    t = model.launch_terms(fits, 1.0, 64, 1024, 2, H100, 1.0)
    assert t["dram"] == pytest.approx(32 * 2**17 / H100.dram_bps)
    t = model.launch_terms(big, 1.0, 64, 1024, 2, H100, 1.0)
    assert t["dram"] == pytest.approx(32 * (2**21 + 2**20) / H100.dram_bps)
    # the rule reads the card's L2 size: 56 MiB in flight pass the H100's 50 MiB, not an RTX 4090's 72
    r4090 = model.GPUS["RTX4090"]
    mid = {k: v * 14 for k, v in fits.items()}
    assert model.missed_rereads(mid, 64, 1024, 1, H100, 1.0) == 14 * 2**16
    assert model.missed_rereads(mid, 64, 1024, 1, r4090, 1.0) == 0


def test_rereads_of_buffers_l2_keeps_are_hits():
    # layernorm counted at 8192 x 4096: every block reads its row once and the whole weight and bias
    # (4096 floats each, 1024 sectors together); that is the reference's short-row path, and at
    # 4096 x 50,304 weight and bias (402 KB) still fit in L2 while x (824 MB) does not
    exercise, case = _bench_and_counted("row-reductions.layernorm", "8192x4096")
    bench_env = model.largest_case(exercise, {}).env
    assert model.l2_held_sectors(exercise, case.env, bench_env, H100) == 1024
    x = 8192 * 4096 // 8
    shared = 8192 * 1024  # the counted grid's blocks each reading weight and bias
    reference = counts(gld_req=(x + shared) // 16, gld_sectors=x + shared, gld_ideal=x + shared,
                       gld_unique=x + 1024, gst_req=x // 16, gst_sectors=x, gst_ideal=x, gst_unique=x,
                       warp_inst=x // 4)
    # a solution that reads the row a second time as well
    reread = dict(reference, gld_sectors=2 * x + shared, gld_ideal=2 * x + shared)
    scale = (8 * 4096 * 50304 + 8 * 50304) / (8 * 8192 * 4096 + 8 * 4096)
    a = model.estimate(exercise, "", case, [reference], [{"blocks_per_sm": 8}], {})
    b = model.estimate(exercise, "", case, [reread], [{"blocks_per_sm": 8}], {})
    distinct = (x + 1024 + x) * scale
    assert a["terms_ms"]["dram"] == pytest.approx(32 * distinct / H100.dram_bps * 1e3, rel=1e-6)
    # the row's second read is x's sectors again less the shared buffers' one distinct read
    assert b["terms_ms"]["dram"] == pytest.approx(32 * (distinct + (x - 1024) * scale) / H100.dram_bps * 1e3,
                                                  rel=1e-6)


def test_a_sectors_other_bytes_read_later_are_no_reread():
    # a chunk per thread: each sector requested by 8 loads for 4 bytes each (8x the ideal sectors),
    # every byte read once: L1's spatial reuse, and L2's, whatever the working set
    chunk = counts(gld_req=2**17, gld_sectors=2**22, gld_ideal=2**19, gld_unique=2**19, warp_inst=2**17)
    assert model.missed_rereads(chunk, 64, 1024, 2, H100, 64.0) == 0
    # the same loads, each reading its 32 bytes again: temporal rereads of a 1 GiB working set
    assert model.missed_rereads(dict(chunk, gld_ideal=2**22), 64, 1024, 2, H100, 64.0) == 2**22 - 2**19


def test_an_inline_ptx_fallbacks_rereads_are_not_costed():
    """The emulator counted the fallback path of an mma.sync/wgmma kernel: its rereads are not the
    GPU's (it drops that path's L2 and latency terms already), so its DRAM term stays the distinct
    sectors; a WMMA source's same counts pay for the rereads past L2."""
    from kernels.compile import compile_submission

    exercise = find_exercise("gemm-epilogue.wmma_fp16")
    wgmma = (exercise.folder / "solutions/correct/hopper_wgmma.cu").read_text()
    wmma = (exercise.folder / "reference.cu").read_text()
    case = exercise.tests[-1]
    footprint = model.footprint_bytes(exercise, case.env) / 32  # every buffer's sectors, counted case
    once = counts(gld_req=10**5, gld_sectors=int(footprint), gld_ideal=int(footprint), gld_unique=int(footprint),
                  warp_inst=10**5)
    again = dict(once, gld_sectors=64 * int(footprint), gld_ideal=64 * int(footprint))
    dram = {}
    for name, source in (("wgmma", wgmma), ("wmma", wmma)):
        constants = compile_submission(source, exercise, None).constants
        for reads, c in (("once", once), ("again", again)):
            est = model.estimate(exercise, source, case, [c], [{"blocks_per_sm": 8}], constants)
            dram[name, reads] = est["terms_ms"]["dram"]
    assert dram["wgmma", "again"] == dram["wgmma", "once"]
    assert dram["wmma", "again"] > 10 * dram["wmma", "once"]


def test_the_estimate_and_the_occupancy_know_the_same_threads_per_sm():
    from kernels.profile.doc import GPUS as OCCUPANCY_CARDS
    from kernels.profile.model import GPUS as ESTIMATE_CARDS

    assert set(ESTIMATE_CARDS) == set(OCCUPANCY_CARDS)
    for name, card in ESTIMATE_CARDS.items():
        assert card.max_threads_per_sm == OCCUPANCY_CARDS[name].max_threads_per_sm, name


def test_a_launch_grows_only_as_far_as_its_buffers_allow():
    # lsd_u32 counted at n = 20,000 (20 blocks), estimated at 2^26 keys (512 blocks): the byte
    # model grows 3355 times, but scan_histogram walks 256 digit counts per block of a 131,072-entry
    # buffer (512 KiB = 16,384 sectors) and grows as far as that, 25.6 times; the scatter's stores
    # into the keys' next buffer grow with the keys
    from kernels.plan import env_for

    exercise = find_exercise("radix-sort.lsd_u32")
    counted = next(c for c in exercise.tests if c.env.get("N") == 20000)
    big = model.largest_case(exercise, {})
    scale, by = model.scale_between(exercise, env_for(counted, {}), env_for(big, {}))
    assert by == "bytes" and scale == pytest.approx(2**26 / 20000)
    specs = {s.kernel: s for s in exercise.launches}
    scan = counts(gld_req=128, gld_sectors=1280, gld_ideal=1280, gld_unique=640, gst_req=64, gst_sectors=640,
                  gst_ideal=640, gst_unique=640, warp_inst=258)
    scatter = counts(gld_req=785, gld_sectors=7620, gld_ideal=3140, gld_unique=3140, gst_req=625, gst_sectors=3182,
                     gst_ideal=2500, gst_unique=2500, warp_inst=6890)
    histogram = counts(gld_req=625, gld_sectors=2500, gld_ideal=2500, gld_unique=2500, gst_req=160, gst_sectors=5120,
                       gst_ideal=640, gst_unique=640, warp_inst=1730)
    envs = env_for(counted, {}), env_for(big, {})
    assert model.launch_scale(exercise, specs["scan_histogram"], scan, *envs, scale) == pytest.approx(16384 / 640)
    for kernel, c in (("scatter_digits", scatter), ("digit_histogram", histogram)):
        assert model.launch_scale(exercise, specs[kernel], c, *envs, scale) == pytest.approx(scale), kernel
    # the scan over all of its buffer already (a counted case of 512 blocks): nothing more to grow
    assert model.launch_scale(exercise, specs["scan_histogram"], dict(scan, gld_unique=16384, gst_unique=16384),
                              *envs, scale) == 1.0
    # the estimate scales each launch so: the scan's work and DRAM bytes grow 25.6 times, not 3355
    kinds = {"scan_histogram": scan, "scatter_digits": scatter, "digit_histogram": histogram}
    plan = [kinds[s.kernel] for s in exercise.launches]
    occ = [{"blocks_per_sm": 4}] * len(plan)
    est = model.estimate(exercise, "", counted, plan, occ, {})
    moved = sum(32 * (c["gld_unique"] + c["gst_unique"]) * (16384 / 640 if c is scan else scale) for c in plan)
    assert est["dram_bytes"] == pytest.approx(moved, rel=1e-6)


def test_a_block_waits_for_its_busiest_threads_rounds_and_combined_stores_are_one_l2_write():
    """Two blocks of 8 warps, 15 load requests each: one warp's 8 loads wait each for the one before
    (8 rounds) or go together (2 rounds); spread over the 16 resident warps the requests wait 30 / 16
    latencies. A row's neighbouring stores combined in L1 reach L2 once."""
    base = dict(gld_req=30, gld_sectors=120, gld_ideal=120, gld_unique=120, gst_req=64, gst_sectors=256,
                gst_ideal=256, gst_unique=64, warp_inst=94)
    serial = model.launch_terms(counts(**base, gld_rounds=16, gst_l2=64), 1.0, 2, 256, 8, H100)
    together = model.launch_terms(counts(**base, gld_rounds=4, gst_l2=64), 1.0, 2, 256, 8, H100)
    assert serial["latency"] == pytest.approx(8 * model.LOAD_LATENCY_S)  # both blocks resident at once
    assert together["latency"] == pytest.approx(2 * model.LOAD_LATENCY_S)  # the rounds, above 30 / 16
    without = model.launch_terms(counts(**base, gst_l2=64), 1.0, 2, 256, 8, H100)
    assert without["latency"] == pytest.approx(30 / 16 * model.LOAD_LATENCY_S)  # counts without rounds
    uncombined = model.launch_terms(counts(**base, gld_rounds=4, gst_l2=256), 1.0, 2, 256, 8, H100)
    assert uncombined["l2"] - together["l2"] == pytest.approx(32 * 192 / H100.l2_bps)
    assert uncombined["dram"] == together["dram"]  # DRAM moves the distinct sectors either way


def test_loads_wait_on_dram_in_the_share_of_new_sectors_at_the_benchmark_size():
    """A GEMM's requests grow with its flops, its distinct sectors with its matrices: at the big
    size most of its loads are of tiles loaded before, and only the new ones wait on DRAM."""
    c = counts(gld_req=1000, gld_sectors=4000, gld_ideal=4000, gld_unique=4000, warp_inst=1000)
    same = model.launch_terms(c, 64.0, 1000, 256, 8, H100, dram_scale=64.0)
    gemm = model.launch_terms(c, 64.0, 1000, 256, 8, H100, dram_scale=4.0)
    assert gemm["latency"] == pytest.approx(same["latency"] * 4 / 64)
    # counted per request (#26): 1,000 requests of which 250 bring only new sectors, 750 none
    # (a stencil's taps): 250 waits, where the launch's share of new sectors would say 1,000
    taps = dict(c, gld_req_new=250 * 1024)
    assert model.launch_terms(taps, 64.0, 1000, 256, 8, H100, dram_scale=64.0)["latency"] == \
        pytest.approx(same["latency"] / 4)
    assert model.launch_terms(taps, 64.0, 1000, 256, 8, H100, dram_scale=4.0)["latency"] == \
        pytest.approx(same["latency"] / 4 * 4 / 64)
