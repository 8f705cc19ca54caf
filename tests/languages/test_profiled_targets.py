"""Which targets profile which language (#29): each language declares it (`profiled_on`),
`kernels.languages.profiled(name, target)` answers it, and `profiled`, the answer for
callers that name no target, stays true only where every target profiles the language."""

from __future__ import annotations

import pytest

from kernels import languages, targets

# The language protocol (kernels/languages/__init__.py): every module declares every member.
PROTOCOL = ("name", "title", "suffix", "editor_mode", "compile", "launches", "tolerance", "profiled_on", "profiled",
            "cpu_time_scale")


@pytest.mark.parametrize("name", languages.NAMES)
def test_every_language_declares_the_protocol_and_the_registry_documents_it(name):
    module = languages.get(name)
    assert [member for member in PROTOCOL if member not in vars(module)] == []
    documented = languages.__doc__ or ""
    assert [member for member in PROTOCOL if f"    {member}" not in documented] == []


@pytest.mark.parametrize("name", languages.NAMES)
def test_a_language_is_profiled_on_targets_the_registry_has(name):
    module = languages.get(name)
    assert module.profiled_on and set(module.profiled_on) <= set(targets.CONCRETE)
    assert len(set(module.profiled_on)) == len(module.profiled_on)
    # the target-less answer: true only where no target leaves the language out
    assert module.profiled is (set(module.profiled_on) == set(targets.CONCRETE))


def test_cuda_is_profiled_everywhere_and_triton_on_the_gpu_only():
    assert [t for t in targets.CONCRETE if languages.profiled("cuda", t)] == ["cuda", "emu"]
    # the CPU runs Triton in its interpreter, which the emulator's counter never sees
    assert [t for t in targets.CONCRETE if languages.profiled("triton", t)] == ["cuda"]
    assert languages.get("cuda").profiled is True and languages.get("triton").profiled is False


def test_no_profile_is_promised_where_the_target_is_not_a_concrete_one():
    for name in languages.NAMES:
        assert not languages.profiled(name, "auto") and not languages.profiled(name, None)
    with pytest.raises(languages.UnknownLanguage):
        languages.profiled("fortran", "cuda")
