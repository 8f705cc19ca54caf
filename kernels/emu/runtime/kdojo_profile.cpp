// Kernel Dojo CPU emulator: the profiler's counters (#16).
//
// A GPU issues a load or store once per warp; the emulator runs a warp's 32
// lanes as fibers, one lane at a time between barriers. So every access of
// learner code is recorded with its block, thread and instruction address
// (pc), and at the end of the launch the n-th execution of a pc by each lane
// of a warp is taken as the same warp-wide instruction: the key is (block,
// warp, pc, n). Per warp instruction that gives what a profiler counts:
//   * global: the distinct 32-byte sectors touched (coalescing);
//   * shared: the wavefronts, i.e. the most distinct 4-byte words any one of
//     the 32 banks must serve (same word: a broadcast, free);
//   * the lanes that executed it (divergence: active lanes / 32);
//   * atomics: operations per address (contention).
// Only memory instructions are seen (the hooks are TSan's), so warp execution
// efficiency is counted over memory instructions, not every instruction.
#include "kdojo_profile.h"

#include "kdojo_rt_internal.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

namespace kdojo {

bool g_profile = false;

#ifdef KDOJO_CHECK

namespace {

enum : uint8_t { F_SHARED = 1, F_WRITE = 2, F_ATOMIC = 4 };

struct Rec {
    uint64_t pc;
    uint64_t addr;
    uint32_t block;
    uint32_t tid;
    uint32_t occ;  // this thread's n-th execution of pc (filled at the end)
    uint16_t bytes;
    uint8_t flags;
};

// 2^21 records (64 MiB) per launch: the judge profiles one small case.
constexpr size_t kMaxRecords = size_t(1) << 21;
std::vector<Rec> g_recs;
bool g_truncated = false;
uint64_t g_accesses = 0;  // lane accesses seen in the launch, recorded or not (past the cap: not)
unsigned g_launch_index = 0;

struct Totals {
    uint64_t v[26] = {};
};
enum {
    GLD_REQ, GLD_SECTORS, GLD_IDEAL, GST_REQ, GST_SECTORS, GST_IDEAL, SHD_REQ, SHD_WAVES, SHD_IDEAL, SHD_MAX_WAYS,
    WARP_INST, ACTIVE_LANES, ATOM_OPS, ATOM_ADDRS, ATOM_MAX, TRUNCATED, GMEM_INST, GMEM_LANES,
    GLD_UNIQUE, GST_UNIQUE, GATOM_OPS, GATOM_ADDRS, GATOM_MAX, ACCESSES, N_KEYS
};
const char* const kNames[N_KEYS] = {"gld_req", "gld_sectors", "gld_ideal", "gst_req", "gst_sectors", "gst_ideal",
                                    "shd_req", "shd_wavefronts", "shd_ideal", "shd_max_ways", "warp_inst",
                                    "active_lanes", "atom_ops", "atom_addrs", "atom_max", "truncated", "gmem_inst",
                                    "gmem_lanes", "gld_unique", "gst_unique", "gatom_ops", "gatom_addrs",
                                    "gatom_max", "accesses"};
// Every global sector read or written in the launch (distinct ones: what DRAM
// must move at least once, the estimate's DRAM term, kernels/profile_model.py).
std::vector<uint64_t> g_read_sectors, g_write_sectors;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// WMMA fragments (kdojo_wmma.h): every lane of the emulator reads the whole tile, one element at
// a time, where a GPU's warp reads each element once with a few 16-byte-per-lane instructions.
// So between profile_fragment(true) and (false) only lane 0's accesses are kept, and the op is
// counted as ceil(bytes / 512) warp instructions over the tile's distinct sectors (global) or
// 128-byte wavefronts (shared, no conflicts assumed).
bool g_fragment = false;
std::vector<Rec> g_frag;
Totals g_frag_totals;
std::vector<uint64_t> g_frag_read, g_frag_write;

void fold_fragment() {
    for (int shared = 0; shared < 2; ++shared)
        for (int write = 0; write < 2; ++write) {
            std::vector<uint64_t> bytes_at, sectors;
            for (const Rec& r : g_frag) {
                if (bool(r.flags & F_SHARED) != bool(shared) || bool(r.flags & F_WRITE) != bool(write)) continue;
                for (uint64_t b = r.addr; b < r.addr + r.bytes; ++b) bytes_at.push_back(b);
            }
            if (bytes_at.empty()) continue;
            std::sort(bytes_at.begin(), bytes_at.end());
            bytes_at.erase(std::unique(bytes_at.begin(), bytes_at.end()), bytes_at.end());
            for (uint64_t b : bytes_at) sectors.push_back(b / 32);
            sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
            uint64_t n = bytes_at.size(), inst = ceil_div(n, 512);
            g_frag_totals.v[WARP_INST] += inst;
            g_frag_totals.v[ACTIVE_LANES] += 32 * inst;
            g_accesses += 32 * inst;
            if (shared) {
                g_frag_totals.v[SHD_REQ] += inst;
                g_frag_totals.v[SHD_WAVES] += ceil_div(n, 128);
                g_frag_totals.v[SHD_IDEAL] += ceil_div(n, 128);
                g_frag_totals.v[SHD_MAX_WAYS] = std::max<uint64_t>(g_frag_totals.v[SHD_MAX_WAYS], 1);
            } else {
                g_frag_totals.v[GMEM_INST] += inst;
                g_frag_totals.v[GMEM_LANES] += 32 * inst;
                g_frag_totals.v[write ? GST_REQ : GLD_REQ] += inst;
                g_frag_totals.v[write ? GST_SECTORS : GLD_SECTORS] += sectors.size();
                g_frag_totals.v[write ? GST_IDEAL : GLD_IDEAL] += ceil_div(n, 32);
                std::vector<uint64_t>& all = write ? g_frag_write : g_frag_read;
                all.insert(all.end(), sectors.begin(), sectors.end());
            }
        }
    g_frag.clear();
}

// One warp instruction: the records [lo, hi) share (block, warp, pc, occ).
void fold_global(const Rec* lo, const Rec* hi, uint64_t lanes, Totals& t) {
    std::vector<uint64_t> sectors;
    for (const Rec* r = lo; r < hi; ++r)
        for (uint64_t s = r->addr / 32; s <= (r->addr + r->bytes - 1) / 32; ++s) sectors.push_back(s);
    std::sort(sectors.begin(), sectors.end());
    uint64_t n = std::unique(sectors.begin(), sectors.end()) - sectors.begin();
    bool store = lo->flags & F_WRITE;
    std::vector<uint64_t>& all = store ? g_write_sectors : g_read_sectors;
    all.insert(all.end(), sectors.begin(), sectors.begin() + n);
    t.v[store ? GST_REQ : GLD_REQ] += 1;
    t.v[store ? GST_SECTORS : GLD_SECTORS] += n;
    t.v[store ? GST_IDEAL : GLD_IDEAL] += ceil_div(lanes * lo->bytes, 32);
}

void fold_shared(const Rec* lo, const Rec* hi, uint64_t lanes, Totals& t) {
    std::vector<uint64_t> words;
    for (const Rec* r = lo; r < hi; ++r)
        for (uint64_t w = r->addr / 4; w <= (r->addr + r->bytes - 1) / 4; ++w) words.push_back(w);
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    unsigned per_bank[32] = {};
    for (uint64_t w : words) ++per_bank[w % 32];
    uint64_t ways = *std::max_element(per_bank, per_bank + 32);
    // A wavefront moves at most 128 bytes: wide accesses need several even without conflicts.
    uint64_t ideal = std::max<uint64_t>(1, ceil_div(lanes * lo->bytes, 128));
    t.v[SHD_REQ] += 1;
    t.v[SHD_WAVES] += std::max(ways, ideal);
    t.v[SHD_IDEAL] += ideal;
    t.v[SHD_MAX_WAYS] = std::max(t.v[SHD_MAX_WAYS], ways);
}

void assign_occurrences() {
    // Records are appended in execution order: a stable sort keeps each
    // thread's executions of a pc in order, so their rank is n.
    std::stable_sort(g_recs.begin(), g_recs.end(), [](const Rec& a, const Rec& b) {
        if (a.block != b.block) return a.block < b.block;
        if (a.tid != b.tid) return a.tid < b.tid;
        return a.pc < b.pc;
    });
    for (size_t i = 0; i < g_recs.size(); ++i) {
        const bool same = i > 0 && g_recs[i - 1].block == g_recs[i].block && g_recs[i - 1].tid == g_recs[i].tid &&
                          g_recs[i - 1].pc == g_recs[i].pc;
        g_recs[i].occ = same ? g_recs[i - 1].occ + 1 : 0;
    }
}

Totals fold() {
    Totals t;
    assign_occurrences();
    std::sort(g_recs.begin(), g_recs.end(), [](const Rec& a, const Rec& b) {
        if (a.block != b.block) return a.block < b.block;
        if (a.tid / 32 != b.tid / 32) return a.tid / 32 < b.tid / 32;
        if (a.pc != b.pc) return a.pc < b.pc;
        if (a.occ != b.occ) return a.occ < b.occ;
        return a.tid < b.tid;
    });
    std::unordered_map<uint64_t, uint64_t> atomics, global_atomics;  // address → operations
    g_read_sectors.clear();
    g_write_sectors.clear();
    for (size_t i = 0; i < g_recs.size();) {
        size_t j = i;
        const Rec& k = g_recs[i];
        while (j < g_recs.size() && g_recs[j].block == k.block && g_recs[j].tid / 32 == k.tid / 32 &&
               g_recs[j].pc == k.pc && g_recs[j].occ == k.occ)
            ++j;
        uint64_t lanes = j - i;  // one record per lane: occ makes (tid, pc, occ) unique
        t.v[WARP_INST] += 1;
        t.v[ACTIVE_LANES] += lanes;
        if (!(k.flags & F_SHARED)) {  // global memory (atomics too): what a memory-bound kernel waits on
            t.v[GMEM_INST] += 1;
            t.v[GMEM_LANES] += lanes;
        }
        if (k.flags & F_ATOMIC) {
            for (size_t r = i; r < j; ++r) ++atomics[g_recs[r].addr];
            t.v[ATOM_OPS] += lanes;
            if (!(k.flags & F_SHARED)) {  // global: done at L2, one sector each (read and written)
                for (size_t r = i; r < j; ++r) {
                    ++global_atomics[g_recs[r].addr];
                    g_read_sectors.push_back(g_recs[r].addr / 32);
                    g_write_sectors.push_back(g_recs[r].addr / 32);
                }
                t.v[GATOM_OPS] += lanes;
            }
        } else if (k.flags & F_SHARED) {
            fold_shared(&g_recs[i], &g_recs[j], lanes, t);
        } else {
            fold_global(&g_recs[i], &g_recs[j], lanes, t);
        }
        i = j;
    }
    t.v[ATOM_ADDRS] = atomics.size();
    for (const auto& a : atomics) t.v[ATOM_MAX] = std::max(t.v[ATOM_MAX], a.second);
    t.v[GATOM_ADDRS] = global_atomics.size();
    for (const auto& a : global_atomics) t.v[GATOM_MAX] = std::max(t.v[GATOM_MAX], a.second);
    g_read_sectors.insert(g_read_sectors.end(), g_frag_read.begin(), g_frag_read.end());
    g_write_sectors.insert(g_write_sectors.end(), g_frag_write.begin(), g_frag_write.end());
    for (int k = 0; k < N_KEYS; ++k)
        if (k == SHD_MAX_WAYS) t.v[k] = std::max(t.v[k], g_frag_totals.v[k]);
        else t.v[k] += g_frag_totals.v[k];
    for (auto* v : {&g_read_sectors, &g_write_sectors}) {
        std::sort(v->begin(), v->end());
        (v == &g_read_sectors ? t.v[GLD_UNIQUE] : t.v[GST_UNIQUE]) = std::unique(v->begin(), v->end()) - v->begin();
        v->clear();
        v->shrink_to_fit();
    }
    t.v[TRUNCATED] = g_truncated;
    // a truncated launch's counts cover records ÷ accesses of it (the estimate scales them up)
    t.v[ACCESSES] = g_accesses;
    return t;
}

}  // namespace

void profile_request_begin() { g_launch_index = 0; }

void profile_launch_begin() {
    g_recs.clear();
    g_truncated = false;
    g_accesses = 0;
    g_fragment = false;
    g_frag.clear();
    g_frag_totals = Totals{};
    g_frag_read.clear();
    g_frag_write.clear();
    ++g_launch_index;
}

void profile_fragment(bool on) {
    if (!g_profile) return;
    if (on) {
        g_fragment = true;
        g_frag.clear();
        return;
    }
    g_fragment = false;
    if (!g_frag.empty()) fold_fragment();
}

void profile_access(bool shared, uintptr_t addr, size_t bytes, bool write, bool atomic, uint64_t pc) {
    Thread* t = current_thread();
    if (!t || !bytes) return;
    if (g_fragment) {  // a WMMA fragment op: lane 0's accesses stand for the warp's (fold_fragment)
        if (t->st.linear % 32 == 0 && g_frag.size() < (size_t(1) << 16))
            g_frag.push_back(Rec{pc, addr, g_block_linear, t->st.linear, 0,
                                 static_cast<uint16_t>(std::min<size_t>(bytes, 65535)),
                                 uint8_t((shared ? F_SHARED : 0) | (write ? F_WRITE : 0))});
        return;
    }
    ++g_accesses;
    if (g_recs.size() >= kMaxRecords) {
        g_truncated = true;
        return;
    }
    uint8_t flags = (shared ? F_SHARED : 0) | (write ? F_WRITE : 0) | (atomic ? F_ATOMIC : 0);
    g_recs.push_back(Rec{pc, addr, g_block_linear, t->st.linear, 0, static_cast<uint16_t>(std::min<size_t>(bytes, 65535)),
                         flags});
}

void profile_launch_end() {
    if (!g_profile) return;
    Totals t = fold();
    std::string text;
    for (int k = 0; k < N_KEYS; ++k) text += std::string(k ? ";" : "") + kNames[k] + "=" + std::to_string(t.v[k]);
    add_diag("profile", 0, g_launch_index, text);
    g_recs.clear();
    g_recs.shrink_to_fit();
}

#else  // the fast build counts nothing

void profile_request_begin() {}
void profile_launch_begin() {}
void profile_access(bool, uintptr_t, size_t, bool, bool, uint64_t) {}
void profile_launch_end() {}
void profile_fragment(bool) {}

#endif

}  // namespace kdojo
