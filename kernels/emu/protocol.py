"""The wire format between the emulator backend and its compiled program.

The program (kernels/emu/runtime/kdojo_host.cpp) is a small server: it reads
one request from stdin, answers on stdout, and waits for the next one, so one
process serves every case of a judge run. Little-endian throughout; strings
are a u32 length followed by UTF-8 bytes.

Request::

    u32 magic "KDRQ", u32 mode (bit 0: adversarial order), u32 buffer count
    per buffer: str name, u64 total bytes, u64 payload offset, u64 payload bytes,
                u32 element bytes, then the whole guarded array
    u32 launch count
    per launch: str kernel, u32 grid[3], u32 block[3], u64 shared bytes,
                u32 arg count, per arg: u32 kind (0 buffer index, 1 int, 2 float), u64 bits

Response::

    u32 magic "KDRS", u64 body length, then the body:
    u32 faulted, str fault name, str fault message, i32 fault line, u64 fault pc,
    u32 diagnostic count, per diagnostic: str kind, i32 line, u64 pc, str message,
    str printf output, u32 buffer count, per buffer: u64 bytes, then the array
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

REQUEST_MAGIC = 0x5152444B
RESPONSE_MAGIC = 0x5352444B
RESPONSE_HEADER = struct.Struct("<IQ")
MODE_ADVERSARIAL = 1

ARG_BUFFER, ARG_INT, ARG_FLOAT = 0, 1, 2


@dataclass(frozen=True)
class WireBuffer:
    name: str
    data: bytes | memoryview  # any contiguous bytes-like object (sent as is)
    payload_offset: int
    payload_bytes: int
    elem_bytes: int


@dataclass(frozen=True)
class WireLaunch:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    args: tuple[tuple[int, int], ...]  # (kind, u64 bits)


@dataclass
class WireDiag:
    kind: str
    line: int
    pc: int
    message: str


@dataclass
class WireResponse:
    fault_name: str | None
    fault_message: str
    fault_line: int
    fault_pc: int
    diagnostics: list[WireDiag] = field(default_factory=list)
    output: str = ""
    buffers: list[bytes | memoryview] = field(default_factory=list)


def _str(value: str) -> bytes:
    raw = value.encode()
    return struct.pack("<I", len(raw)) + raw


def float_bits(value: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", float(value)))[0]


def int_bits(value: int) -> int:
    return int(value) & 0xFFFFFFFFFFFFFFFF


def encode_request(buffers: list[WireBuffer], launches: list[WireLaunch], adversarial: bool) -> bytes:
    parts = [struct.pack("<III", REQUEST_MAGIC, MODE_ADVERSARIAL if adversarial else 0, len(buffers))]
    for b in buffers:
        parts.append(_str(b.name))
        parts.append(struct.pack("<QQQI", memoryview(b.data).nbytes, b.payload_offset, b.payload_bytes, b.elem_bytes))
        parts.append(b.data)
    parts.append(struct.pack("<I", len(launches)))
    for launch in launches:
        parts.append(_str(launch.kernel))
        parts.append(struct.pack("<6IQI", *launch.grid, *launch.block, launch.shared_bytes, len(launch.args)))
        for kind, bits in launch.args:
            parts.append(struct.pack("<IQ", kind, bits))
    return b"".join(parts)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.pos = 0

    def take(self, fmt: str) -> tuple:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ValueError("truncated response")
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values

    def raw(self, size: int) -> memoryview:
        if self.pos + size > len(self.data):
            raise ValueError("truncated response")
        chunk = self.data[self.pos:self.pos + size]
        self.pos += size
        return chunk

    def string(self) -> str:
        (size,) = self.take("<I")
        return bytes(self.raw(size)).decode("utf-8", errors="replace")


# The runtime sends at most 32 diagnostics (and one profile count per launch) and one
# buffer per request buffer. The counts are the program's to write: without a bound,
# 8 MB of answer made 400,000 Python objects in the judge before any check.
MAX_WIRE_DIAGNOSTICS = 1024
MAX_WIRE_BUFFERS = 1024


def decode_body(body: bytes | memoryview) -> WireResponse:
    """Parse a response body (after the magic and the length). Raises ValueError.
    The returned buffers are views of `body` (read-only use), not copies."""
    r = _Reader(body)
    (faulted,) = r.take("<I")
    name, message = r.string(), r.string()
    line, pc = r.take("<iQ")
    response = WireResponse(fault_name=name if faulted else None, fault_message=message,
                            fault_line=line, fault_pc=pc)
    (count,) = r.take("<I")
    if count > MAX_WIRE_DIAGNOSTICS:
        raise ValueError(f"{count} diagnostics")
    for _ in range(count):
        kind = r.string()
        dline, dpc = r.take("<iQ")
        response.diagnostics.append(WireDiag(kind, dline, dpc, r.string()))
    response.output = r.string()
    (nbuf,) = r.take("<I")
    if nbuf > MAX_WIRE_BUFFERS:
        raise ValueError(f"{nbuf} buffers")
    for _ in range(nbuf):
        (size,) = r.take("<Q")
        response.buffers.append(r.raw(size))
    return response
