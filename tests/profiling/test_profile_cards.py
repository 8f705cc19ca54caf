"""The card the emulator's estimate models (#26): $KDOJO_PROFILE_GPU picks one of the published
cards, the profile names it, and a bad name is refused when the judge starts."""

from __future__ import annotations

import pytest

from kernels.profile import doc as prof
from kernels.profile import emu as profile_emu, model as profile_model
from kernels.judge import Judge


def test_every_card_has_its_figures_and_their_source():
    assert {"H100", "H200", "A100", "L4", "RTX4090"} <= set(profile_model.GPUS)
    for name, gpu in profile_model.GPUS.items():
        assert gpu.name == name and gpu.source
        for value in (gpu.sms, gpu.clock_hz, gpu.dram_bps, gpu.l2_bps, gpu.fp32_flops, gpu.tensor_flops,
                      gpu.l2_bytes, gpu.smem_per_sm, gpu.atomic_same_address_s):
            assert value > 0, name
        assert prof.GPUS[name].smem_per_sm == gpu.smem_per_sm  # occupancy uses the same card


def test_the_setting_picks_the_card(monkeypatch):
    monkeypatch.delenv(profile_model.GPU_ENV, raising=False)
    assert profile_model.gpu_model().name == "H100"
    monkeypatch.setenv(profile_model.GPU_ENV, "L4")
    assert profile_model.gpu_model().name == "L4"
    monkeypatch.setenv(profile_model.GPU_ENV, "B200")
    with pytest.raises(ValueError, match="KDOJO_PROFILE_GPU"):
        profile_model.gpu_model()


def test_a_memory_bound_launch_follows_each_cards_bandwidth():
    counts = {k: 0 for k in profile_emu.COUNT_KEYS}
    counts.update(gld_req=1 << 20, gld_sectors=4 << 20, gld_ideal=4 << 20, gld_unique=4 << 20, warp_inst=1 << 20,
                  active_lanes=32 << 20, accesses=32 << 20)
    dram = {name: profile_model.launch_terms(counts, 1.0, 4096, 256, 8, gpu)["dram"]
            for name, gpu in profile_model.GPUS.items()}
    assert dram["H200"] < dram["H100"] < dram["A100"] < dram["RTX4090"] < dram["L4"]


def test_a_bad_card_name_stops_the_judge_at_start(monkeypatch):
    monkeypatch.setenv(profile_model.GPU_ENV, "H1OO")
    with pytest.raises(ValueError, match="unknown card 'H1OO'"):
        Judge(backend="emu", keep_spare=False)
