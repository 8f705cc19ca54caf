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
    mode bit 1 (MODE_JSON, Python servers only: kernels/triton/interp_server.py):
    str JSON after the launches: what a Python server needs and the C++ runtime
    never reads, {"buffers": [{"dtype", "role", "init"}, …], "launches":
    [{"kernel": the @triton.jit function's name, "meta": {constexprs, num_warps,
    num_stages}}, …], "timeout_s": the case's wall limit}

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
MODE_JSON = 2

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


def encode_request(buffers: list[WireBuffer], launches: list[WireLaunch], adversarial: bool,
                   extra_json: str | None = None) -> bytes:
    """The request; `extra_json` (Python servers only) sets MODE_JSON and follows the launches."""
    mode = (MODE_ADVERSARIAL if adversarial else 0) | (MODE_JSON if extra_json is not None else 0)
    parts = [struct.pack("<III", REQUEST_MAGIC, mode, len(buffers))]
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
    if extra_json is not None:
        parts.append(_str(extra_json))
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


# The server's side, for servers written in Python (kernels/triton/interp_server.py).
MAX_REQUEST_STRING = 1 << 20


@dataclass
class WireRequest:
    mode: int
    buffers: list[tuple[str, bytearray, int, int, int]]  # name, whole guarded array, payload offset, bytes, elem
    launches: list[WireLaunch]
    extra_json: str | None = None


def _read_exact(stream, size: int) -> bytes:
    data = stream.read(size)
    if data is None or len(data) != size:
        raise EOFError("the request ended early")
    return data


def _read_string(stream) -> str:
    (size,) = struct.unpack("<I", _read_exact(stream, 4))
    if size > MAX_REQUEST_STRING:
        raise ValueError(f"a {size}-byte string")
    return _read_exact(stream, size).decode("utf-8")


def read_request(stream) -> WireRequest | None:
    """One request from a binary stream (`.read(n)`); None at a clean end of input.
    Raises EOFError or ValueError for a malformed one."""
    head = stream.read(12)
    if not head:
        return None
    if len(head) != 12:
        raise EOFError("the request ended early")
    magic, mode, count = struct.unpack("<III", head)
    if magic != REQUEST_MAGIC or count > MAX_WIRE_BUFFERS:
        raise ValueError("not a request")
    buffers = []
    for _ in range(count):
        name = _read_string(stream)
        total, offset, size, elem = struct.unpack("<QQQI", _read_exact(stream, 28))
        if offset + size > total or elem == 0:
            raise ValueError(f"buffer '{name}': bad layout")
        data = bytearray(total)
        view = memoryview(data)
        got = 0
        while got < total:
            n = stream.readinto(view[got:])
            if not n:
                raise EOFError("the request ended early")
            got += n
        buffers.append((name, data, offset, size, elem))
    (nlaunch,) = struct.unpack("<I", _read_exact(stream, 4))
    launches = []
    for _ in range(nlaunch):
        kernel = _read_string(stream)
        fields = struct.unpack("<6IQI", _read_exact(stream, 36))
        args = tuple(struct.unpack("<IQ", _read_exact(stream, 12)) for _ in range(fields[7]))
        launches.append(WireLaunch(kernel, fields[0:3], fields[3:6], fields[6], args))
    extra = _read_string(stream) if mode & MODE_JSON else None
    return WireRequest(mode, buffers, launches, extra)


def encode_response(response: WireResponse) -> bytes:
    """The answer as the runtime writes it: magic, body length, body (decode_body's inverse)."""
    parts = [struct.pack("<I", response.fault_name is not None), _str(response.fault_name or ""),
             _str(response.fault_message), struct.pack("<iQ", response.fault_line, response.fault_pc),
             struct.pack("<I", len(response.diagnostics))]
    for d in response.diagnostics:
        parts += [_str(d.kind), struct.pack("<iQ", d.line, d.pc), _str(d.message)]
    parts += [_str(response.output), struct.pack("<I", len(response.buffers))]
    for data in response.buffers:
        parts += [struct.pack("<Q", memoryview(data).nbytes), data]
    body = b"".join(parts)
    return RESPONSE_HEADER.pack(RESPONSE_MAGIC, len(body)) + body
