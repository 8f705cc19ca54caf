// Kernel Dojo CPU emulator: the memory checker of the "check" build.
//
// The learner's code is compiled with -fsanitize=thread, so every load and
// store calls __tsan_{read,write}N(addr). No sanitizer runtime is linked:
// these hooks are ours. They know every region a kernel may touch — the
// judge's buffers (payload between guard bands), the launch's dynamic shared
// memory, the learner's static __shared__ arrays (padded and announced by
// note_shared, see kernels/emu/source.py) — and check two things:
//   * bounds: an access outside a payload, into a guard band, a redzone or
//     past dynamic shared memory ends the case with a fault;
//   * races: per 2 bytes, the last write and the last read; two accesses
//     by different threads, one a write, not both atomic, and not ordered by
//     a __syncthreads() (same block) or a warp collective (same warp) are a
//     data race. Blocks are never ordered with each other inside a launch.
// Fault messages carry "@@PC:0x…@@" where a line is wanted; the host side
// symbolises them (addr2line) into the learner's line numbers. An atomic's
// access carries the learner's line itself instead (kLineTag | line, from
// note_atomic): its code is a runtime header's, whose address names no line.
#include "kdojo_rt_internal.h"
#include "kdojo_profile.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#ifdef KDOJO_CHECK

// The linker's bounds of the section `kdojo_shared` (kdojo_device.h KDOJO_SHARED_LOOSE);
// weak, so a program without such a variable links with both null.
extern "C" char __start_kdojo_shared[] __attribute__((weak));
extern "C" char __stop_kdojo_shared[] __attribute__((weak));

namespace kdojo {
namespace {

char* loose_shared_lo() { return __start_kdojo_shared; }
char* loose_shared_hi() { return __stop_kdojo_shared; }

struct Access {
    uint32_t block;  // 1-based block id, 0: never accessed
    uint32_t tid;
    uint32_t bar;
    uint32_t sync;
    uint64_t pc;
    bool atomic;
};
struct Cell {
    Access w;
    Access r;
};

// R_LOOSE: the section `kdojo_shared`, every static __shared__ variable that
// kernels/emu/source.py did not rewrite into a named one (kdojo_device.h).
enum RegionKind { R_BUFFER, R_DYN_SHARED, R_STATIC, R_LOOSE };

struct Region {
    RegionKind kind;
    std::string name;
    uintptr_t lo, hi;              // valid bytes [lo, hi)
    uintptr_t track_lo, track_hi;  // checked bytes (valid + guards / redzones)
    uintptr_t map_lo, map_hi;      // bytes that exist (an access outside would fault)
    size_t elem_bytes;
    std::vector<Cell> cells;       // one per kGranule bytes of [lo, hi)
};

// Shadow granule: 2 bytes, so that threads writing neighbouring __half values
// do not look like they share a word.
constexpr uintptr_t kGranule = 2;

std::vector<Region> g_statics;
std::vector<Region> g_launch;  // buffers and dynamic shared memory of this launch

constexpr uint64_t kLineTag = 1ull << 63;
int line_of(uint64_t pc) { return pc & kLineTag ? static_cast<int>(pc & 0xffffffffu) : 0; }
uint64_t code_of(uint64_t pc) { return pc & kLineTag ? 0 : pc; }

std::string pc_tag(uint64_t pc) {
    char b[48];
    if (pc & kLineTag) {
        if (!line_of(pc)) return "an unknown line";
        snprintf(b, sizeof b, "line %d", line_of(pc));
    } else {
        snprintf(b, sizeof b, "@@PC:0x%llx@@", static_cast<unsigned long long>(pc));
    }
    return b;
}

// A diagnostic at an access's pc: the learner's line where the access knows it.
void diag_at(const char* kind, uint64_t pc, const std::string& message) {
    add_diag(kind, line_of(pc), code_of(pc), message);
}

std::string who(uint32_t block, uint32_t tid) {
    char b[64];
    snprintf(b, sizeof b, "thread %u of block %u", tid, block - 1);
    return b;
}

std::string where(const Region& r) {
    switch (r.kind) {
        case R_BUFFER: return "buffer '" + r.name + "'";
        case R_DYN_SHARED: return "dynamic shared memory (extern __shared__)";
        case R_LOOSE: return "static shared memory (a __shared__ variable declared in a form the emulator cannot name, "
                             "such as through a macro)";
        default: return "shared memory array '" + r.name + "'";
    }
}

Region* find(std::vector<Region>& regions, uintptr_t a) {
    for (Region& r : regions)
        if (a >= r.track_lo && a < r.track_hi) return &r;
    return nullptr;
}

struct PendingWrite {  // a write-write race, benign if both wrote the same value
    uintptr_t addr;
    uint16_t snapshot;
    uint64_t pc;
    std::string message;
};
std::vector<PendingWrite> g_pending;
unsigned g_races = 0;

void out_of_bounds(const Region& r, uintptr_t a, size_t size, bool write, uint64_t pc) {
    std::string msg = std::string(write ? "out-of-bounds write" : "out-of-bounds read") + " of " +
                      std::to_string(size) + " bytes: " + where(r);
    long long off = static_cast<long long>(a) - static_cast<long long>(r.lo);
    long long elems = static_cast<long long>((r.hi - r.lo) / (r.elem_bytes ? r.elem_bytes : 1));
    if (r.kind == R_DYN_SHARED) {
        msg += " at byte offset " + std::to_string(off) + ", but the launch gives it " + std::to_string(r.hi - r.lo) + " bytes";
    } else {
        long long eb = static_cast<long long>(r.elem_bytes);
        long long idx = off >= 0 ? off / eb : -((-off + eb - 1) / eb);
        msg += " at element " + std::to_string(idx);
        if (r.kind == R_STATIC) msg += " (byte offset " + std::to_string(off) + ")";
        msg += ", valid elements are 0.." + std::to_string(elems - 1);
    }
    Thread* t = current_thread();
    msg += " (" + who(g_block_linear, t ? t->st.linear : 0) + ", " + pc_tag(pc) + ")";
    bool mapped = r.kind != R_BUFFER || (a >= r.map_lo && a + size <= r.map_hi);
    if (!mapped) fail_in_fiber(write ? "out-of-bounds write" : "out-of-bounds read", msg, line_of(pc), code_of(pc));
    // Shared memory has no guard bands: a GPU reports an access past a block's
    // shared memory as an error, so this ends the case (the host side makes it
    // a runtime_error); a buffer overrun is judged by its guard bands.
    if (r.kind != R_BUFFER)
        fail_in_fiber(write ? "out-of-bounds shared memory write" : "out-of-bounds shared memory read", msg,
                      line_of(pc), code_of(pc));
    diag_at("out_of_bounds", pc, msg);
}

bool ordered(const Access& x, const Access& cur) {
    if (x.block != cur.block) return false;
    if (x.bar < cur.bar) return true;
    return x.tid / 32 == cur.tid / 32 && x.sync < cur.sync;
}

unsigned g_atomic_reads = 0;  // reads during atomic updates reported in this launch (a warning, once)
// Each thread's latest atomic of the launch: its bytes and the thread's barrier epoch then.
struct AtomicMark {
    uintptr_t lo, hi;
    uint32_t bar;
};
std::unordered_map<uint64_t, AtomicMark> g_last_atomic;
uint64_t thread_key(uint32_t block, uint32_t tid) { return (uint64_t(block) << 32) | tid; }

// Whether `reader` had itself updated the word at `at` atomically earlier in the same barrier
// interval: a count it adds to and then reads before the others are done (a race), not the
// first guess of an atomicCAS loop.
bool read_after_own_atomic(const Access& reader, uintptr_t at) {
    auto it = g_last_atomic.find(thread_key(reader.block, reader.tid));
    return it != g_last_atomic.end() && it->second.bar == reader.bar && at >= it->second.lo && at < it->second.hi;
}

void race(const Region& r, uintptr_t addr, size_t word, const Access& prev, bool prev_write, const Access& cur,
          bool cur_write) {
    // A plain read against another thread's atomic update, and nothing else: a GPU's aligned read
    // sees the word whole, before or after the update. An atomicCAS loop starts so (its first guess,
    // the CUDA guide's own atomicAdd for double); a total read before the atomics are done is a bug
    // the result shows (the fast run's order and the checked run's reverse order read it at
    // different points). A warning, not a verdict.
    bool prev_atomic_write = prev_write && prev.atomic, cur_atomic_write = cur_write && cur.atomic;
    const Access& reader = cur_write ? prev : cur;
    const Access& updater = cur_write ? cur : prev;
    if (((prev_atomic_write && !cur_write) || (cur_atomic_write && !prev_write)) &&
        !read_after_own_atomic(reader, r.lo + word * kGranule)) {
        if (g_atomic_reads++ == 0) {
            diag_at("atomic_read_race", reader.pc,
                    who(reader.block, reader.tid) + " reads " + where(r) + " (" + pc_tag(reader.pc) + ") while " +
                        who(updater.block, updater.tid) + " updates it atomically (" + pc_tag(updater.pc) +
                        ") with no barrier in between: the read sees the value before or after the update "
                        "(a warning: an atomicCAS loop starts so; a total read before every update is done "
                        "fails by its result)");
        }
        return;
    }
    if (g_races >= 16) return;
    size_t idx = word * kGranule / (r.elem_bytes ? r.elem_bytes : 4);
    std::string at = r.kind == R_LOOSE ? " at byte offset " + std::to_string(word * kGranule) : " element " + std::to_string(idx);
    std::string msg = "data race on " + where(r) + at + ": " + who(cur.block, cur.tid) +
                      (cur_write ? " writes it" : " reads it") + " (" + pc_tag(cur.pc) + ") while " +
                      who(prev.block, prev.tid) + (prev_write ? " wrote it" : " read it") + " (" + pc_tag(prev.pc) + ")";
    if (prev.block == cur.block)
        msg += " with no __syncthreads()/__syncwarp() in between: a missing barrier";
    else
        msg += "; different blocks are never ordered inside a launch: use an atomic";
    if (prev_write && cur_write && !prev.atomic && !cur.atomic) {
        uint16_t snap;
        uintptr_t at = r.lo + word * kGranule;
        memcpy(&snap, reinterpret_cast<const void*>(at), 2);
        g_pending.push_back(PendingWrite{at, snap, cur.pc, msg});
        return;
    }
    ++g_races;
    diag_at("race", cur.pc, msg);
}

// initcheck: the first read, in a launch, of shared memory that no thread of
// the block has written (it holds the 0xFF poison, garbage on a GPU).
bool g_uninit_reported = false;
__attribute__((noinline, cold)) void uninitialised_read(const Region& r, uintptr_t a, uint64_t pc) {
    g_uninit_reported = true;
    Thread* t = current_thread();
    diag_at("uninitialised_read", pc,
             "read of " + where(r) + " at byte offset " + std::to_string(a - r.lo) +
                 " before any thread of the block wrote it: shared memory starts as garbage (" +
                 who(g_block_linear, t ? t->st.linear : 0) + ", " + pc_tag(pc) + ")");
}

void track(Region& r, uintptr_t a, size_t size, bool write, bool atomic, uint64_t pc) {
    Thread* t = current_thread();
    Access cur{g_block_linear, t->st.linear, t->bar_epoch, t->sync_epoch, pc, atomic};
    if (atomic) g_last_atomic[thread_key(cur.block, cur.tid)] = AtomicMark{a, a + size, cur.bar};
    size_t first = (a - r.lo) / kGranule, last = (a + size - 1 - r.lo) / kGranule;
    if (!write && r.kind != R_BUFFER && !g_uninit_reported && first < r.cells.size() && !r.cells[first].w.block)
        uninitialised_read(r, a, pc);
    for (size_t w = first; w <= last && w < r.cells.size(); ++w) {
        Cell& c = r.cells[w];
        bool same_w = c.w.block == cur.block && c.w.tid == cur.tid;
        if (c.w.block && !same_w && !(c.w.atomic && atomic) && !ordered(c.w, cur)) race(r, a, w, c.w, true, cur, write);
        if (write) {
            bool same_r = c.r.block == cur.block && c.r.tid == cur.tid;
            if (c.r.block && !same_r && !ordered(c.r, cur)) race(r, a, w, c.r, false, cur, true);
            c.w = cur;
            c.r = Access{};
        } else if (!c.r.block || ordered(c.r, cur)) {
            c.r = cur;
        }
    }
}

// A load or store the compiler emitted as naturally aligned (__tsan_readN, not
// __tsan_unaligned_readN) at an address that is not: on a GPU, "misaligned
// address" (e.g. a float4 at an index not a multiple of 4).
__attribute__((noinline, cold)) void misaligned(uintptr_t a, size_t size, bool write, uint64_t pc) {
    char b[96];
    snprintf(b, sizeof b, "misaligned %zu-byte %s at address 0x%llx, ", size, write ? "write" : "read",
             static_cast<unsigned long long>(a));
    fail_in_fiber("misaligned address", std::string(b) + pc_tag(pc) + ": a " + std::to_string(size) +
                  "-byte access needs an address that is a multiple of " + std::to_string(size), 0, pc);
}

void access_aligned(uintptr_t a, size_t size, bool write, uint64_t pc);

void access(uintptr_t a, size_t size, bool write, bool atomic, uint64_t pc) {
    if (!g_block_linear || !current_thread() || in_current_stack(a)) return;
    Region* r = find(g_launch, a);
    if (!r) r = find(g_statics, a);
    if (!r) return;  // the learner's own locals, string literals, heap: not tracked
    // #16: sectors as a GPU would see them: cudaMalloc aligns an array to 256 bytes, the
    // emulator only to 16 (kdojo_host.cpp map_buffer), so count from a 256-aligned base.
    if (g_profile) profile_access(r->kind != R_BUFFER, r->kind == R_BUFFER ? a - (r->map_lo & 255) : a, size, write, atomic, pc, r->lo, r->hi);
    if (a < r->lo || a + size > r->hi) out_of_bounds(*r, a, size, write, pc);
    track(*r, a, size, write, atomic, pc);
}

Region make_region(RegionKind kind, const std::string& name, uintptr_t lo, uintptr_t hi, uintptr_t tlo, uintptr_t thi,
                   size_t elem) {
    Region r{kind, name, lo, hi, tlo, thi, tlo, thi, elem, {}};
    // A counted run (#26) checks no race on the judge's buffers (the tests did): at a benchmark's
    // size their shadow, 32 bytes per byte, would not fit in the sandbox.
    if (!(g_profile && kind == R_BUFFER)) r.cells.assign((hi - lo + kGranule - 1) / kGranule, Cell{});
    return r;
}

void access_aligned(uintptr_t a, size_t size, bool write, uint64_t pc) {
    if (__builtin_expect((a & (size - 1)) != 0, 0) && g_block_linear && current_thread()) misaligned(a, size, write, pc);
    access(a, size, write, false, pc);
}

// GCC calls the unaligned and range hooks where the type's alignment is below the access's size
// (a struct of floats copied whole). A GPU compiler cannot make one vector access of it either:
// it loads or stores the 4-byte words one by one, and so they are taken (and counted, #16).
void access_words(uintptr_t a, size_t size, bool write, uint64_t pc) {
    if (size <= 4 || size % 4 != 0) return access(a, size, write, false, pc);
    for (size_t o = 0; o < size; o += 4) access(a + o, 4, write, false, pc);
}

}  // namespace

void check_launch_begin() {
    g_launch.clear();
    profile_launch_begin();  // #16
    for (const BufferRegion& b : g_buffers) {
        auto base = reinterpret_cast<uintptr_t>(b.base);
        g_launch.push_back(make_region(R_BUFFER, b.name, base + b.payload_offset, base + b.payload_offset + b.payload_bytes,
                                       base - 4096, base + b.total_bytes + 4096, b.elem_bytes));
        g_launch.back().map_lo = base;
        g_launch.back().map_hi = base + b.total_bytes;
    }
    // The unnamed static shared variables (kdojo_device.h KDOJO_SHARED_LOOSE).
    auto lo = reinterpret_cast<uintptr_t>(loose_shared_lo()), hi = reinterpret_cast<uintptr_t>(loose_shared_hi());
    if (lo < hi) g_launch.push_back(make_region(R_LOOSE, "kdojo_shared", lo, hi, lo, hi, 1));
    auto s = reinterpret_cast<uintptr_t>(g_dyn_smem);
    g_launch.push_back(make_region(R_DYN_SHARED, "extern __shared__", s, s + g_dyn_smem_bytes, s, s + g_dyn_smem_bytes + 4096, 1));
}

// A write-write race where both threads wrote the same value changes nothing
// (llm.c's layernorm: every lane stores the warp's sum): decided once the
// block is over, before the next block reuses its shared memory.
unsigned g_benign = 0;
void resolve_pending() {
    for (const PendingWrite& p : g_pending) {
        uint16_t now;
        memcpy(&now, reinterpret_cast<const void*>(p.addr), 2);
        if (now != p.snapshot && g_races < 16) {
            ++g_races;
            diag_at("race", p.pc, p.message);
        } else if (now == p.snapshot && g_benign < 1) {
            // A warning, not a verdict: the result is what decides.
            ++g_benign;
            std::string what = p.message.substr(0, std::min(p.message.find(" with no __syncthreads"),
                                                            p.message.find("; different blocks")));
            diag_at("benign_race", p.pc, what + ": every thread wrote the same value, so the result cannot "
                                            "change (a warning; one writer would do)");
        }
    }
    g_pending.clear();
}

void check_block_begin() {
    resolve_pending();
    profile_block_begin();  // #16
    // Shared memory (dynamic, unnamed static and named static) is per block: forget the last
    // block's accesses.
    for (Region& r : g_launch)
        if (r.kind != R_BUFFER) std::fill(r.cells.begin(), r.cells.end(), Cell{});
    for (Region& r : g_statics) std::fill(r.cells.begin(), r.cells.end(), Cell{});
    // The unnamed static shared variables start each block as garbage, as the named ones do
    // at their first use (kdojo_device.h shared_first_use).
    if (loose_shared_lo() < loose_shared_hi())
        poison_shared(loose_shared_lo(), static_cast<size_t>(loose_shared_hi() - loose_shared_lo()));
}

void check_launch_end() {
    resolve_pending();
    profile_launch_end();  // #16
    g_races = 0;
    g_benign = 0;
    g_atomic_reads = 0;
    g_last_atomic.clear();
    g_uninit_reported = false;
    g_launch.clear();
}

void note_shared(const void* p, size_t bytes, const char* name) {
    auto lo = reinterpret_cast<uintptr_t>(p);
    for (const Region& r : g_statics)
        if (r.lo == lo) return;
    // kernels/emu/source.py pads every static __shared__ array with 256 bytes each side.
    g_statics.push_back(make_region(R_STATIC, name, lo, lo + bytes, lo - 256, lo + bytes + 256, 4));
}

void note_atomic(const volatile void* p, unsigned bytes, int line) {
    access(reinterpret_cast<uintptr_t>(p), bytes, true, true, kLineTag | static_cast<uint32_t>(line > 0 ? line : 0));
}

}  // namespace kdojo

// GCC's -fsanitize=thread instrumentation, with our own runtime behind it:
// one call per load and store of the learner's code (unlike ASan's, it does
// not drop the store of a read-modify-write, which the race check needs).
// GCC's -fsanitize=alignment (check build): a typed load or store through a
// pointer not aligned for its type — on a GPU, "misaligned address" (a float4
// read at x + 1). The compiler may copy such a value as smaller pieces, which
// the __tsan hooks alone would not see. The layouts are UBSan's (v1 ABI).
namespace {
struct UbsanLocation { const char* file; uint32_t line; uint32_t column; };
struct UbsanType { uint16_t kind; uint16_t info; char name[1]; };
struct UbsanMismatch { UbsanLocation loc; const UbsanType* type; unsigned char log_alignment; unsigned char check_kind; };
}  // namespace
extern "C" void __ubsan_handle_type_mismatch_v1(UbsanMismatch* data, uintptr_t ptr) {
    if (!kdojo::g_block_linear || !kdojo::current_thread() || !data) return;
    unsigned long long align = 1ull << data->log_alignment;
    if (ptr == 0 || (ptr & (align - 1)) == 0) return;
    // check_kind 0: load, 1: store (UBSan's TypeCheckKind); anything else is an access too.
    const char* what = data->check_kind == 0 ? "read" : data->check_kind == 1 ? "write" : "access";
    // The line only where it is the learner's (#line "submission.cu"), not a runtime header's.
    bool learner = data->loc.file && strstr(data->loc.file, "submission.cu") != nullptr;
    unsigned line = learner ? data->loc.line : 0;
    char at[32] = "";
    if (line) snprintf(at, sizeof at, ", line %u", line);
    char b[240];
    snprintf(b, sizeof b, "misaligned %llu-byte %s at address 0x%llx%s: a %.40s needs an address that is a multiple of %llu",
             align, what, static_cast<unsigned long long>(ptr), at, data->type ? data->type->name : "value", align);
    kdojo::fail_in_fiber("misaligned address", b, static_cast<int>(line), 0);
}
extern "C" void __ubsan_handle_type_mismatch_v1_abort(UbsanMismatch* data, uintptr_t ptr) {
    __ubsan_handle_type_mismatch_v1(data, ptr);
}

#define KDOJO_RA reinterpret_cast<uint64_t>(__builtin_return_address(0))
#define KDOJO_CFA reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa())  // the calling function's frame
#define KDOJO_HOOK(N)                                                                                    \
    extern "C" void __tsan_read##N(void* a) { kdojo::access_aligned(reinterpret_cast<uintptr_t>(a), N, false, KDOJO_RA); } \
    extern "C" void __tsan_write##N(void* a) { kdojo::access_aligned(reinterpret_cast<uintptr_t>(a), N, true, KDOJO_RA); } \
    extern "C" void __tsan_unaligned_read##N(void* a) { kdojo::access_words(reinterpret_cast<uintptr_t>(a), N, false, KDOJO_RA); } \
    extern "C" void __tsan_unaligned_write##N(void* a) { kdojo::access_words(reinterpret_cast<uintptr_t>(a), N, true, KDOJO_RA); }
KDOJO_HOOK(1)
KDOJO_HOOK(2)
KDOJO_HOOK(4)
KDOJO_HOOK(8)
KDOJO_HOOK(16)
#undef KDOJO_HOOK

// Volatile accesses (tsan-distinguish-volatile, when the source has `volatile`):
// the warp takes them in lockstep (warp_step), then they are checked as any other.
#define KDOJO_VOLATILE_HOOK(N)                                                                           \
    extern "C" void __tsan_volatile_read##N(void* a) {                                                  \
        kdojo::warp_step(reinterpret_cast<uintptr_t>(a), KDOJO_RA, KDOJO_CFA);                          \
        kdojo::access(reinterpret_cast<uintptr_t>(a), N, false, false, KDOJO_RA);                       \
    }                                                                                                    \
    extern "C" void __tsan_volatile_write##N(void* a) {                                                 \
        kdojo::warp_step(reinterpret_cast<uintptr_t>(a), KDOJO_RA, KDOJO_CFA);                          \
        kdojo::access(reinterpret_cast<uintptr_t>(a), N, true, false, KDOJO_RA);                        \
    }
KDOJO_VOLATILE_HOOK(1)
KDOJO_VOLATILE_HOOK(2)
KDOJO_VOLATILE_HOOK(4)
KDOJO_VOLATILE_HOOK(8)
KDOJO_VOLATILE_HOOK(16)
#undef KDOJO_VOLATILE_HOOK

extern "C" void __tsan_read_range(void* a, size_t n) { kdojo::access_words(reinterpret_cast<uintptr_t>(a), n, false, KDOJO_RA); }
extern "C" void __tsan_write_range(void* a, size_t n) { kdojo::access_words(reinterpret_cast<uintptr_t>(a), n, true, KDOJO_RA); }
#undef KDOJO_RA
#undef KDOJO_CFA

#else  // the fast build: no checker

#ifdef KDOJO_COVER
// The coverage program (kernels/coverage.py, an authoring tool, never the judge's): the code
// addresses of the learner's basic blocks that ran (trace-pc), each reported once, after the
// launch that first ran it, in a "coverage" diagnostic of @@PC@@ tags the host symbolises.
namespace {
constexpr size_t kCoverSlots = size_t(1) << 15;
uintptr_t g_cover[kCoverSlots];     // open addressing; 0: empty (one thread: no workers here)
bool g_cover_told[kCoverSlots];
int g_cover_reports = 0;
void cover(uintptr_t pc) {
    for (size_t i = (pc * 0x9E3779B97F4A7C15ull) >> 49, n = 0; n < kCoverSlots; i = (i + 1) & (kCoverSlots - 1), ++n) {
        if (g_cover[i] == pc) return;
        if (!g_cover[i]) {
            g_cover[i] = pc;
            return;
        }
    }
}
}  // namespace
#endif

namespace kdojo {
void check_launch_begin() {}
void check_block_begin() {}
#ifdef KDOJO_COVER
void check_launch_end() {
    std::string text;
    for (size_t i = 0; i < kCoverSlots; ++i) {
        if (!g_cover[i] || g_cover_told[i]) continue;
        g_cover_told[i] = true;
        char tag[40];
        snprintf(tag, sizeof tag, "@@PC:0x%llx@@ ", static_cast<unsigned long long>(g_cover[i]));
        text += tag;
    }
    if (!text.empty()) add_diag("coverage", ++g_cover_reports, 0, text);
}
#else
void check_launch_end() {}
#endif
}  // namespace kdojo

// A source with `volatile` is compiled with -fsanitize=thread here too
// (kernels/emu/build.py), for its volatile accesses' lockstep; every other
// access is a call that does nothing.
#define KDOJO_RA reinterpret_cast<uint64_t>(__builtin_return_address(0))
#define KDOJO_CFA reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa())
#define KDOJO_FAST_HOOK(N)                                                                               \
    extern "C" void __tsan_read##N(void*) {}                                                             \
    extern "C" void __tsan_write##N(void*) {}                                                            \
    extern "C" void __tsan_unaligned_read##N(void*) {}                                                   \
    extern "C" void __tsan_unaligned_write##N(void*) {}                                                  \
    extern "C" void __tsan_volatile_read##N(void* a) { kdojo::warp_step(reinterpret_cast<uintptr_t>(a), KDOJO_RA, KDOJO_CFA); } \
    extern "C" void __tsan_volatile_write##N(void* a) { kdojo::warp_step(reinterpret_cast<uintptr_t>(a), KDOJO_RA, KDOJO_CFA); }
KDOJO_FAST_HOOK(1)
KDOJO_FAST_HOOK(2)
KDOJO_FAST_HOOK(4)
KDOJO_FAST_HOOK(8)
KDOJO_FAST_HOOK(16)
#undef KDOJO_FAST_HOOK

// GCC's -fsanitize-coverage=trace-pc (a source with `volatile`): every basic block,
// for the lockstep's reconvergence at loops' back edges (the check build's is
// kdojo_profile.cpp's).
extern "C" void __sanitizer_cov_trace_pc() {
    kdojo::warp_branch(KDOJO_RA, KDOJO_CFA);
#ifdef KDOJO_COVER
    cover(KDOJO_RA);
#endif
}
#undef KDOJO_RA
#undef KDOJO_CFA
extern "C" void __tsan_read_range(void*, size_t) {}
extern "C" void __tsan_write_range(void*, size_t) {}
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

#endif

// Both builds: hooks with nothing to check (calls, vtables) and the memory functions.
extern "C" void __tsan_init() {}
extern "C" void __tsan_func_entry(void*) {}
extern "C" void __tsan_func_exit() {}
extern "C" void __tsan_vptr_update(void**, void*) {}
extern "C" void __tsan_vptr_read(void**) {}
extern "C" void* __tsan_memcpy(void* d, const void* s, size_t n) { return memcpy(d, s, n); }
extern "C" void* __tsan_memset(void* d, int c, size_t n) { return memset(d, c, n); }
extern "C" void* __tsan_memmove(void* d, const void* s, size_t n) { return memmove(d, s, n); }
