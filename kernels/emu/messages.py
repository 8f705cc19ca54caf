"""Message codes for the emulator's sentences (#28): races, barriers, warp masks,
out-of-bounds and uninitialised reads, faults and limits.

The runtime (runtime/*.cpp) writes its findings as English sentences, which stay
the `message` for the CLI and the API. The program runs the learner's code, so a
sentence is data: `coded()` reads the known shapes back into a code and its
parameters (kernels.contract.MESSAGE_CODES) for the web to say in the reader's
language; a sentence of no known shape stays a plain str and the web shows it as
written. Every parameter is a str or an int taken from the sentence itself.
"""

from __future__ import annotations

import re

from kernels.messages import MESSAGE_CODES, Message

_LINE = r"(?P<{0}>line \d+|an unknown line)"
_REGION = r"(?P<{0}>buffer '[^']*'|shared memory array '[^']*'|dynamic shared memory \(extern __shared__\)|" \
          r"static shared memory \([^)]*\))"
_WHO = r"thread (?P<{0}thread>\d+) of block (?P<{0}block>\d+)"
_THREAD3 = r"thread (?P<thread>\([\d,]+\)) of block (?P<block>\([\d,]+\))"

# code → the sentence's shape; named groups become parameters (see _params).
_SHAPES: dict[str, re.Pattern[str]] = {name: re.compile(pattern, re.S) for name, pattern in {
    "race": rf"data race on {_REGION.format('region')}(?: element (?P<index>\d+)| at byte offset (?P<offset>\d+)): "
            rf"{_WHO.format('')} (?P<access>reads|writes) it \({_LINE.format('line')}\) while "
            rf"{_WHO.format('other_')} (?P<other_access>wrote|read) it \({_LINE.format('other_line')}\)"
            r"(?P<scope> with no __syncthreads\(\)/__syncwarp\(\) in between: a missing barrier|"
            r"; different blocks are never ordered inside a launch: use an atomic)",
    "race_order": r"the result changes when the threads run in reverse order, a probable missing __syncthreads\(\) "
                  r"or __syncwarp\(\): (?P<where>\S+): expected (?P<expected>\S+), got (?P<got>\S+?)(?: \(never "
                  r"written\))?; (?P<count>\d+) of (?P<size>\d+) element\(s\) differ",
    "uninitialised_read": rf"read of {_REGION.format('region')} at byte offset (?P<offset>\d+) before any thread of "
                          rf"the block wrote it: shared memory starts as garbage \({_WHO.format('')}, "
                          rf"{_LINE.format('line')}\)",
    "out_of_bounds": rf"(?P<access>out-of-bounds read|out-of-bounds write) of (?P<bytes>\d+) bytes: "
                     rf"{_REGION.format('region')} at element (?P<index>-?\d+)(?: \(byte offset -?\d+\))?, valid "
                     rf"elements are 0\.\.(?P<last>-?\d+) \({_WHO.format('')}, {_LINE.format('line')}\)",
    "out_of_bounds_dynamic": rf"(?P<access>out-of-bounds read|out-of-bounds write) of (?P<bytes>\d+) bytes: dynamic "
                             r"shared memory \(extern __shared__\) at byte offset (?P<offset>-?\d+), but the launch "
                             rf"gives it (?P<size_bytes>\d+) bytes \({_WHO.format('')}, {_LINE.format('line')}\)",
    "divergent_barrier": rf"__syncthreads\(\) on line (?P<line>\d+) is skipped by some threads of the block: "
                         rf"{_THREAD3} finished without reaching it \((?P<done>\d+) of (?P<total>\d+) threads did\)",
    "divergent_barrier_places": rf"__syncthreads\(\) reached from different places: line (?P<line>\d+) and line "
                                rf"(?P<other_line>\d+) \({_THREAD3}\); every thread of a block must reach the same "
                                r"__syncthreads\(\)",
    "shuffle_source": r"lane (?P<lane>\d+) of warp (?P<warp>\d+) reads lane (?P<source>-?\d+) with (?P<op>\w+)"
                      r"(?:, which has already finished|, but mask (?P<mask>0x[0-9a-f]+) does not name that lane): "
                      r"the value it gets is undefined",
    "warp_mask": r"(?P<op>\w+) on line (?P<line>\d+) names lanes \(mask (?P<mask>0x[0-9a-f]+)\) that never arrive: "
                 r"lane (?P<lane>\d+) of warp (?P<warp>\d+) finished without reaching it \((?P<count>\d+) lanes in all\)",
    "deadlock_barrier": r"(?P<op>\w+) on line (?P<line>\d+) \(mask (?P<mask>0x[0-9a-f]+)\) waits for lane (?P<lane>\d+) "
                        r"of warp (?P<warp>\d+), which waits at __syncthreads\(\) on line (?P<other_line>\d+): "
                        r"neither can proceed",
    "deadlock": r"every thread of the block is waiting and none can proceed",
    # the rarer sentences: warnings, warp collectives, traps, launches (kernels/emu/runtime/*.cpp, *.h)
    "atomic_read_race": rf"{_WHO.format('')} reads {_REGION.format('region')} \({_LINE.format('line')}\) while "
                        rf"{_WHO.format('other_')} updates it atomically \({_LINE.format('other_line')}\) with no "
                        r"barrier in between: the read sees the value before or after the update \(a warning: an "
                        r"atomicCAS loop starts so; a total read before every update is done fails by its result\)",
    "benign_race": rf"data race on {_REGION.format('region')}(?: element (?P<index>\d+)| at byte offset "
                   rf"(?P<offset>\d+)): {_WHO.format('')} writes it \({_LINE.format('line')}\) while "
                   rf"{_WHO.format('other_')} wrote it \({_LINE.format('other_line')}\): every thread wrote the "
                   r"same value, so the result cannot change \(a warning; one writer would do\)",
    "warp_lanes_apart": r"lane (?P<lane>\d+) of warp (?P<warp>\d+) (?:is at|waits at) (?P<op>\w+) \(line "
                        r"(?P<line>\d+)\) while lane (?P<other_lane>\d+) of warp \d+ (?:is at|reaches) "
                        r"(?P<other_op>\w+) \(line (?P<other_line>\d+)\); every lane named in the mask must call "
                        r"the same one",
    "warp_masks_disagree": r"lanes of warp (?P<warp>\d+) disagree on the mask of (?P<op>\w+): lane (?P<lane>\d+) "
                           r"passes (?P<mask>0x[0-9a-f]+) \(line (?P<line>\d+)\), lane (?P<other_lane>\d+) passes "
                           r"(?P<other_mask>0x[0-9a-f]+) \(line (?P<other_line>\d+)\)",
    "warp_mask_elsewhere": r"(?P<op>\w+) on line (?P<line>\d+) \(mask (?P<mask>0x[0-9a-f]+)\) waits for lanes "
                           r"that are at a different warp collective",
    "warp_mask_self": r"(?P<op>\w+) called by lane (?P<lane>\d+) with mask (?P<mask>0x[0-9a-f]+), which does not "
                      r"include that lane",
    "shuffle_width": r"(?P<op>\w+): width (?P<width>-?\d+) must be a power of two no larger than 32",
    "trap": rf"__trap\(\) called in {_THREAD3}",
    "assert_failed": rf"device-side assert failed: (?P<expression>.*) in {_THREAD3}",
    "launch_bounds": r"the launch has (?P<threads>\d+) threads per block, more than the kernel's "
                     r"__launch_bounds__\((?P<bound>\d+)\) allows: a GPU refuses to launch it "
                     rf"\({_THREAD3}\)",
    "grid_sync": r"this_grid\(\)\.sync\(\) needs a cooperative launch \(cudaLaunchCooperativeKernel\); the "
                 r"judge launches kernels normally, so a grid-wide barrier cannot work: split the kernel in two "
                 rf"launches or use atomics \({_THREAD3}\)",
    "tile_size": r"tiled_partition\(group, n\): the emulator supports n = 1, 2, 4, 8, 16 or 32 "
                 rf"\({_THREAD3}\)",
    "launch_dims_zero": r"(?P<kernel>\w+): grid and block dimensions must be at least 1",
    "launch_threads": r"(?P<kernel>\w+): a block has (?P<threads>\d+) threads; the maximum is 1024",
    "launch_block_dims": r"(?P<kernel>\w+): block dimensions exceed \(1024, 1024, 64\)",
    "launch_grid_dims": r"(?P<kernel>\w+): grid dimensions exceed \(2\^31-1, 65535, 65535\)",
    "launch_shared": r"(?P<kernel>\w+): dynamic shared memory of (?P<bytes>\d+) bytes exceeds the 227 KB a block "
                     r"may use",
    "launch_args": r"(?P<kernel>\w+): the launch plan passes a different number of arguments than the kernel takes",
    "misaligned": r"misaligned (?P<bytes>\d+)-byte (?P<access>read|write|access) at address (?P<address>0x[0-9a-f]+)"
                  rf"(?:, {_LINE.format('line')})?: a (?:\d+-byte access|[^:]{{1,40}}) needs an address that is a "
                  r"multiple of \d+",
    "output_corrupted": r"the program's answer named a fault the runtime does not give",
    "emu_no_memory": r"the emulator could not allocate (?P<what>a thread stack|shared memory)",
}.items()}

_NUMBER = re.compile(r"-?\d{1,18}")
_INT_PARAMS = {"index", "offset", "thread", "block", "other_thread", "other_block", "count", "size", "bytes",
               "last", "size_bytes", "done", "total", "lane", "warp", "source", "other_lane", "width", "threads",
               "bound", "bytes"}


def _line(text: str | None) -> int:
    """"line 8" or "8" → 8; "an unknown line" (or none) → 0."""
    digits = (text or "").removeprefix("line ")
    return int(digits) if digits.isdigit() else 0


def _region(text: str) -> tuple[str, str]:
    """A region's words → (kind, name): buffer, shared, dynamic_shared, static_shared."""
    if text.startswith("buffer '"):
        return "buffer", text[8:-1]
    if text.startswith("shared memory array '"):
        return "shared", text[21:-1]
    return ("dynamic_shared" if text.startswith("dynamic") else "static_shared"), ""


def _params(match: re.Match[str]) -> dict[str, str | int]:
    """The groups as parameters; an optional number the sentence left out is -1."""
    params: dict[str, str | int] = {}
    for key, value in match.groupdict().items():
        if key == "region":
            params["region"], params["name"] = _region(value)
        elif key in ("line", "other_line"):
            params[key] = _line(value)
        elif key in ("access", "other_access"):
            params[key] = "write" if value.endswith(("write", "writes", "wrote")) else \
                "access" if value == "access" else "read"
        elif key == "what":
            params[key] = "stack" if value.endswith("stack") else "shared"
        elif key == "scope":
            params[key] = "block" if "barrier" in value else "grid"
        elif key in _INT_PARAMS and (value is None or _NUMBER.fullmatch(value)):
            params[key] = int(value) if value is not None else -1
        else:
            params[key] = value or ""
    return params


def coded(text: str) -> str:
    """`text` as a Message when it is one of the runtime's known sentences, else `text`."""
    if isinstance(text, Message):
        return text
    for code, shape in _SHAPES.items():
        match = shape.fullmatch(text)
        if match:
            params = _params(match)
            if "line" in MESSAGE_CODES[code]:  # a sentence that leaves its line to the diagnostic: 0 until named
                params.setdefault("line", 0)
            return Message(text, code, **params)
    return text
