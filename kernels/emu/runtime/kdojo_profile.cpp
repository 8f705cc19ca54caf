// Kernel Dojo CPU emulator: the profiler's counters (#16).
//
// A GPU issues a load or store once per warp; the emulator runs a warp's 32
// lanes as fibers, one lane at a time between barriers. So every access of
// learner code is recorded with its block, thread and instruction address
// (pc), and at the end of the launch the n-th execution of a pc by each lane
// of a warp since the block's last __syncthreads() is taken as the same
// warp-wide instruction: the key is (block, warp, pc, barriers passed, n).
// (Without the barriers, a lane that skipped a loop step's access, e.g. in a
// bitonic network's compare-and-swap whose partner is below it, would pair its
// next step's access with its neighbours' current one.) Per warp instruction
// that gives what a profiler counts:
//   * global: the distinct 32-byte sectors touched (coalescing);
//   * shared: the wavefronts, i.e. the most distinct 4-byte words any one of
//     the 32 banks must serve (same word: a broadcast, free); a 16-byte access
//     a half-warp at a time. Before pairing, each thread's runs of scalar
//     shared loads (stores) at adjacent, aligned addresses are merged into the
//     vector access nvcc issues for them (LDS.64 / LDS.128: merge_shared_runs),
//     where every execution of the run's instructions in the launch is aligned;
//   * the lanes that executed it (divergence: active lanes / 32);
//   * atomics: operations per address (contention).
// Those hooks see memory instructions only. Warp execution efficiency counts
// every executed basic block instead: the check build's learner code is also
// compiled with -fsanitize-coverage=trace-pc, so each basic block it enters
// calls __sanitizer_cov_trace_pc (below; a return when the request does not
// count). Each lane's executions of each block are counted; at the end of a
// CUDA block, per warp and basic block, the warp executed it as often as its
// busiest lane did (lanes reconverge after a branch) and the lanes' sum is its
// thread executions. A basic block weighs its x86 code bytes (from its call
// site to the next one), an instruction count's stand-in, less the bytes of
// this instrumentation itself (work_*: a memory hook's call and the load of its
// argument, an alignment check, a thread-pointer load feeding a hook), which a
// GPU does not execute; the code_* counts keep the raw bytes.
#include "kdojo_profile.h"

#include "kdojo_rt_internal.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace kdojo {

bool g_profile = false;
uint32_t g_profile_sample = 0;

#ifdef KDOJO_CHECK

namespace {

// F_ROOM16: a shared access whose 16-byte-aligned block lies wholly inside its variable;
// F_COMBINED: a global store into the sector the same thread's previous global access stored to
// (count_rounds: L1 combines it with that one on its way to L2)
// F_NEW: a global load of a sector no earlier access of the launch loaded (count_rounds)
enum : uint8_t { F_SHARED = 1, F_WRITE = 2, F_ATOMIC = 4, F_ROOM16 = 8, F_COMBINED = 16, F_NEW = 32 };

struct Rec {
    uint64_t addr;
    uint32_t pc;     // the static program's code address (< 2^31), or bit 31 | the learner's line (atomics)
    uint32_t block;
    uint32_t epoch;  // the barriers (__syncthreads) the thread had passed in its block
    uint32_t occ;    // this thread's n-th execution of pc since that barrier (filled at the end;
                     // until then the warp collectives it had taken part in: count_rounds)
    uint16_t tid;
    uint16_t bytes;
    uint8_t flags;
    uint8_t phase;   // shared: the address's offset from its variable's start, mod 16 (merge_shared_runs)
};
static_assert(sizeof(Rec) == 32, "a record is 32 bytes");
uint32_t pc32(uint64_t pc) { return static_cast<uint32_t>((pc >> 32 ? 0x80000000u : 0u) | (pc & 0x7fffffffu)); }

// 2^21 records (64 MiB: 32 bytes each) per launch: the judge profiles one small case.
constexpr size_t kMaxRecords = size_t(1) << 21;
std::vector<Rec> g_recs;
bool g_truncated = false;
uint64_t g_accesses = 0;  // lane accesses seen in the launch, recorded or not (past the cap: not)
unsigned g_launch_index = 0;
// A sampled launch (#26): the blocks to run, in the order they run; the blocks started so far.
std::vector<uint64_t> g_sample_order;
uint64_t g_blocks_run = 0;

enum {
    GLD_REQ, GLD_SECTORS, GLD_IDEAL, GST_REQ, GST_SECTORS, GST_IDEAL, SHD_REQ, SHD_WAVES, SHD_IDEAL, SHD_MAX_WAYS,
    WARP_INST, ACTIVE_LANES, ATOM_OPS, ATOM_ADDRS, ATOM_MAX, TRUNCATED, GMEM_INST, GMEM_LANES,
    GLD_UNIQUE, GST_UNIQUE, GATOM_OPS, GATOM_ADDRS, GATOM_MAX, ACCESSES,
    BB_INST, BB_LANES, CODE_INST, CODE_LANES, CODE_PRED_LANES, BB_DROPPED, BB_PRED_LANES,
    WORK_INST, WORK_LANES, WORK_PRED_LANES, BLOCKS, GLD_ROUNDS, GST_L2, BLOCK_COLLECTIVES,
    BLOCK_BARRIERS, GLD_REQ_NEW, N_KEYS
};
struct Totals {
    uint64_t v[N_KEYS] = {};
};
const char* const kNames[N_KEYS] = {"gld_req", "gld_sectors", "gld_ideal", "gst_req", "gst_sectors", "gst_ideal",
                                    "shd_req", "shd_wavefronts", "shd_ideal", "shd_max_ways", "warp_inst",
                                    "active_lanes", "atom_ops", "atom_addrs", "atom_max", "truncated", "gmem_inst",
                                    "gmem_lanes", "gld_unique", "gst_unique", "gatom_ops", "gatom_addrs",
                                    "gatom_max", "accesses", "bb_inst", "bb_lanes", "code_inst", "code_lanes",
                                    "code_pred_lanes", "bb_dropped", "bb_pred_lanes", "work_inst", "work_lanes",
                                    "work_pred_lanes", "blocks", "gld_rounds", "gst_l2",
                                    "block_collectives", "block_barriers", "gld_req_new"};
// Every global sector read or written in the launch (distinct ones: what DRAM
// must move at least once, the estimate's DRAM term, kernels/profile_model.py).
std::vector<uint64_t> g_read_sectors, g_write_sectors;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// WMMA fragments (kdojo_wmma.h): every lane of the emulator reads the whole tile, one element at
// a time, where a GPU's warp reads each element once with a few 16-byte-per-lane instructions.
// So between profile_fragment(true) and (false) only lane 0's accesses are kept, and the op is
// counted as ceil(bytes / 512) warp instructions over the tile's distinct sectors (global) or
// 128-byte wavefronts (shared, no conflicts assumed) — except the two shared-memory forms whose
// instructions nvcc 13's sm_90 SASS shows, counted bank by bank (fold_shared_fragment):
//   FRAG_LDSM: a 16 x 16 tile of 16-bit elements (matrix_a / matrix_b of m16n16k16 half or bf16,
//     either layout) is one LDSM.16.M88.4 (ldmatrix.x4): four 8 x 8 matrices, each 8 memory rows
//     of 16 bytes (rows 0-7 or 8-15 of the tile as stored, its first or second 16 bytes), one
//     pass per matrix unless rows share banks: a matrix takes as many wavefronts as the most rows
//     on one group of 4 banks (unpadded 32-byte rows: 2-way, 8 wavefronts a request; padded by
//     8 elements: 4);
//   FRAG_ACC64: a 16 x 16 fp32 accumulator stored (loaded) row-major is four STS.64 (LDS.64): in
//     each, lane l holds row 8j + l / 4 and columns 8k + 2(l % 4), +1 (the mma.sync m16n8k16
//     accumulator layout).
bool g_fragment = false;
int g_frag_pattern = FRAG_PLAIN;
std::vector<Rec> g_frag;
Totals g_frag_totals;
std::vector<uint64_t> g_frag_read, g_frag_write;
// (block << 16 | lane 0's thread) → the warp's fragment loads from global memory that brought a
// new sector (count_rounds); the sectors fragment loads brought so far in the launch
std::unordered_map<uint64_t, uint64_t> g_frag_rounds;
std::unordered_set<uint64_t> g_frag_loaded;

uint64_t shared_waves(const Rec* lo, const Rec* hi, uint64_t& ideal, uint64_t& ways);

// The distinct bytes, ascending, of the fragment op's records of one kind (shared or global, load
// or store).
std::vector<uint64_t> fragment_bytes(bool shared, bool write) {
    std::vector<uint64_t> bytes_at;
    for (const Rec& r : g_frag) {
        if (bool(r.flags & F_SHARED) != shared || bool(r.flags & F_WRITE) != write) continue;
        for (uint64_t b = r.addr; b < r.addr + r.bytes; ++b) bytes_at.push_back(b);
    }
    std::sort(bytes_at.begin(), bytes_at.end());
    bytes_at.erase(std::unique(bytes_at.begin(), bytes_at.end()), bytes_at.end());
    return bytes_at;
}

// A fragment op's shared-memory instructions in the launch's totals.
void count_shared_fragment(uint64_t inst, uint64_t waves, uint64_t ideal, uint64_t ways) {
    g_frag_totals.v[WARP_INST] += inst;
    g_frag_totals.v[ACTIVE_LANES] += 32 * inst;
    g_accesses += 32 * inst;
    g_frag_totals.v[SHD_REQ] += inst;
    g_frag_totals.v[SHD_WAVES] += waves;
    g_frag_totals.v[SHD_IDEAL] += ideal;
    g_frag_totals.v[SHD_MAX_WAYS] = std::max(g_frag_totals.v[SHD_MAX_WAYS], ways);
}

// A fragment op of one of the two forms above, all of it in shared memory: true if counted.
bool fold_shared_fragment() {
    if (g_frag_pattern == FRAG_PLAIN || g_frag.empty()) return false;
    const bool write = g_frag.front().flags & F_WRITE;
    for (const Rec& r : g_frag)
        if (!(r.flags & F_SHARED) || bool(r.flags & F_WRITE) != write) return false;
    const std::vector<uint64_t> bytes_at = fragment_bytes(true, write);
    if (bytes_at.size() != 16 * 16 * (g_frag_pattern == FRAG_LDSM ? 2 : 4)) return false;
    uint64_t inst = 0, waves = 0, ideal = 0, ways = 1;
    if (g_frag_pattern == FRAG_LDSM) {
        // the tile's 32 segments of 16 bytes in address order: memory row i / 2, its half i % 2
        std::vector<uint64_t> seg;
        for (uint64_t b : bytes_at)
            if (seg.empty() || b / 16 != seg.back()) seg.push_back(b / 16);
        if (seg.size() != 32) return false;  // not 16-byte aligned rows: no ldmatrix
        inst = 1;
        for (int half = 0; half < 2; ++half)
            for (int rows = 0; rows < 16; rows += 8) {
                unsigned group[8] = {};
                for (int r = rows; r < rows + 8; ++r) ++group[seg[2 * r + half] % 8];
                const uint64_t most = *std::max_element(group, group + 8);
                waves += most;
                ideal += 1;
                ways = std::max(ways, most);
            }
    } else {  // FRAG_ACC64: memory rows of 64 bytes in address order, 16 of them
        std::vector<uint64_t> row;
        for (uint64_t b : bytes_at)
            if (row.empty() || b >= row.back() + 64) row.push_back(b);
        if (row.size() != 16) return false;
        inst = 4;
        Rec lane[32] = {};
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 2; ++k) {  // one 8-byte access per lane, as any shared instruction
                for (int l = 0; l < 32; ++l) {
                    lane[l].addr = row[8 * j + l / 4] + 4 * (8 * k + 2 * (l % 4));
                    lane[l].bytes = 8;
                }
                waves += shared_waves(lane, lane + 32, ideal, ways);
            }
    }
    count_shared_fragment(inst, waves, ideal, ways);
    g_frag.clear();
    return true;
}

void fold_fragment() {
    if (fold_shared_fragment()) return;
    for (int shared = 0; shared < 2; ++shared)
        for (int write = 0; write < 2; ++write) {
            const std::vector<uint64_t> bytes_at = fragment_bytes(shared, write);
            if (bytes_at.empty()) continue;
            std::vector<uint64_t> sectors;
            for (uint64_t b : bytes_at) sectors.push_back(b / 32);
            sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
            uint64_t n = bytes_at.size(), inst = ceil_div(n, 512);
            if (shared) {
                count_shared_fragment(inst, ceil_div(n, 128), ceil_div(n, 128), 1);
            } else {
                g_frag_totals.v[WARP_INST] += inst;
                g_frag_totals.v[ACTIVE_LANES] += 32 * inst;
                g_accesses += 32 * inst;
                g_frag_totals.v[GMEM_INST] += inst;
                g_frag_totals.v[GMEM_LANES] += 32 * inst;
                g_frag_totals.v[write ? GST_REQ : GLD_REQ] += inst;
                g_frag_totals.v[write ? GST_SECTORS : GLD_SECTORS] += sectors.size();
                g_frag_totals.v[write ? GST_IDEAL : GLD_IDEAL] += ceil_div(n, 32);
                bool fresh = false;  // a tile with a sector no fragment load brought before waits on DRAM
                if (!write)
                    for (uint64_t sec : sectors) fresh |= g_frag_loaded.insert(sec).second;
                if (fresh) {
                    g_frag_totals.v[GLD_REQ_NEW] += 1024 * inst;
                    ++g_frag_rounds[uint64_t(g_frag.front().block) << 16 | g_frag.front().tid];
                }
                std::vector<uint64_t>& all = write ? g_frag_write : g_frag_read;
                all.insert(all.end(), sectors.begin(), sectors.end());
            }
        }
    g_frag.clear();
}

// One warp instruction: the records [lo, hi) share (block, warp, pc, epoch, occ).
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
    if (!store) {  // the request waits on DRAM in the share of its sectors that are new (1/1024ths)
        std::vector<uint64_t> fresh;
        for (const Rec* r = lo; r < hi; ++r)
            if (r->flags & F_NEW)
                for (uint64_t s = r->addr / 32; s <= (r->addr + r->bytes - 1) / 32; ++s) fresh.push_back(s);
        std::sort(fresh.begin(), fresh.end());
        const uint64_t k = std::unique(fresh.begin(), fresh.end()) - fresh.begin();
        t.v[GLD_REQ_NEW] += (1024 * k + n / 2) / n;
    }
    t.v[store ? GST_SECTORS : GLD_SECTORS] += n;
    t.v[store ? GST_IDEAL : GLD_IDEAL] += ceil_div(lanes * lo->bytes, 32);
    if (store) {  // the sectors that reach L2: those of lanes whose store L1 did not combine
        sectors.clear();
        for (const Rec* r = lo; r < hi; ++r)
            if (!(r->flags & F_COMBINED))
                for (uint64_t s = r->addr / 32; s <= (r->addr + r->bytes - 1) / 32; ++s) sectors.push_back(s);
        std::sort(sectors.begin(), sectors.end());
        t.v[GST_L2] += std::unique(sectors.begin(), sectors.end()) - sectors.begin();
    }
}

// Wavefronts of the lanes [lo, hi): the most distinct 4-byte words one of the 32 banks serves,
// and at least one per 128 distinct bytes (lanes reading the same word share it: a broadcast).
uint64_t shared_waves(const Rec* lo, const Rec* hi, uint64_t& ideal, uint64_t& ways) {
    std::vector<uint64_t> words;
    for (const Rec* r = lo; r < hi; ++r)
        for (uint64_t w = r->addr / 4; w <= (r->addr + r->bytes - 1) / 4; ++w) words.push_back(w);
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    unsigned per_bank[32] = {};
    for (uint64_t w : words) ++per_bank[w % 32];
    const uint64_t most = *std::max_element(per_bank, per_bank + 32);
    const uint64_t need = std::max<uint64_t>(1, ceil_div(words.size() * 4, 128));
    ways = std::max(ways, most);
    ideal += need;
    return std::max(most, need);
}

void fold_shared(const Rec* lo, const Rec* hi, uint64_t /*lanes*/, Totals& t) {
    uint64_t ideal = 0, ways = 0, waves = 0;
    if (lo->bytes == 16) {
        // A 16-byte access is served a half-warp at a time (ncu: a broadcast LDS.128 is 2
        // wavefronts, 32 lanes' distinct float4s 4): records are sorted by lane within the warp.
        const Rec* mid = lo;
        while (mid < hi && mid->tid % 32 < 16) ++mid;
        if (mid > lo) waves += shared_waves(lo, mid, ideal, ways);
        if (hi > mid) waves += shared_waves(mid, hi, ideal, ways);
    } else {
        waves = shared_waves(lo, hi, ideal, ways);
    }
    t.v[SHD_REQ] += 1;
    t.v[SHD_WAVES] += waves;
    t.v[SHD_IDEAL] += ideal;
    t.v[SHD_MAX_WAYS] = std::max(t.v[SHD_MAX_WAYS], ways);
}

// ---- which loads wait on which (#26) ----
// A thread's global loads issued before it stores anything (to global or shared memory) or passes
// a barrier are in flight together: nvcc issues a run of independent loads before their first
// use, and a store is where a loaded value is used at the latest. A staging loop's `tile[j] = x[j]`
// waits for each load before the next one is issued (sm_90 SASS: LDG, STS, the branch back); four
// loads into registers, then four stores, wait once. Each run that loads a sector no earlier load
// of the launch did (in execution order: F_NEW) is a round, one DRAM latency; the others are L1
// or L2 hits. A block holds its SM's slots until its busiest thread's rounds are done, so
// gld_rounds is the sum over blocks of their busiest thread's rounds (a WMMA fragment loaded from
// global memory that brings a new sector: a round of its warp's lane 0); gld_req_new sums each
// load request's share of new sectors, in 1/1024ths (fold_global). A round is a lower bound: a loop
// of loads with no store between them is one round, where nvcc may keep it rolled (a grid-stride
// `acc += in[i]`: one LDG and the FADD that waits for it a step) or unroll it (a constant stride
// of 32: sixteen LDGs, then their uses), and a load whose address comes from an earlier load of
// the run (a gather's index) is in its round though it waits for it. The estimate takes the
// longer of this and every request waiting (kernels/profile/model.py).
// Stores: a global store into the sector the thread's previous global access stored to (the
// same epoch, no load between: four scalar stores of neighbouring words) is combined with it in
// L1 before L2 (ncu: 4 scalar stores a thread at 16-byte stride, each sector reaches L2 once),
// flagged F_COMBINED; gst_l2 counts the sectors L2 receives.
// The rest of a block's serial chain: its busiest thread's warp collectives (shuffles, votes) and
// barriers, as of its last memory access (block_collectives, block_barriers: sums over blocks).
void count_rounds(Totals& t) {
    struct State {
        uint32_t epoch = 0, rounds = 0, collectives = 0;
        bool open = false, waits = false;  // a round is open; it has brought a new sector
        uint64_t stored = UINT64_MAX;  // the sector of the previous global access, if it was a store
    };
    std::unordered_map<uint64_t, State> threads;  // block << 16 | thread
    std::unordered_set<uint64_t> loaded;           // sectors loaded so far, in execution order
    for (Rec& r : g_recs) {
        State& s = threads[uint64_t(r.block) << 16 | r.tid];
        s.collectives = std::max(s.collectives, r.occ);
        if (s.epoch != r.epoch) {
            s.epoch = r.epoch;
            s.open = false;
            s.stored = UINT64_MAX;
        }
        const bool shared = r.flags & F_SHARED, write = r.flags & F_WRITE, atomic = r.flags & F_ATOMIC;
        if (!shared && !write && !atomic) {
            for (uint64_t sec = r.addr / 32; sec <= (r.addr + r.bytes - 1) / 32; ++sec)
                if (loaded.insert(sec).second) r.flags |= F_NEW;
            if (!s.open) s.waits = false;
            s.open = true;
            if ((r.flags & F_NEW) && !s.waits) {  // only a round that brings a new sector waits on DRAM
                s.waits = true;
                ++s.rounds;
            }
            s.stored = UINT64_MAX;
        } else if (write || atomic) {
            s.open = false;
            if (shared) continue;
            const uint64_t first = r.addr / 32, last = (r.addr + r.bytes - 1) / 32;
            if (!atomic && first == last && first == s.stored) r.flags |= F_COMBINED;
            s.stored = atomic ? UINT64_MAX : last;
        }
    }
    for (const auto& f : g_frag_rounds) threads[f.first].rounds += static_cast<uint32_t>(f.second);
    g_frag_rounds.clear();
    struct Most { uint32_t rounds = 0, collectives = 0, barriers = 0; };
    std::unordered_map<uint32_t, Most> busiest;  // block → its busiest thread's
    for (const auto& th : threads) {
        Most& most = busiest[static_cast<uint32_t>(th.first >> 16)];
        most.rounds = std::max(most.rounds, th.second.rounds);
        most.collectives = std::max(most.collectives, th.second.collectives);
        most.barriers = std::max(most.barriers, th.second.epoch);
    }
    for (const auto& b : busiest) {
        t.v[GLD_ROUNDS] += b.second.rounds;
        t.v[BLOCK_COLLECTIVES] += b.second.collectives;
        t.v[BLOCK_BARRIERS] += b.second.barriers;
    }
}

void assign_occurrences() {
    // Records are appended in execution order: a stable sort keeps each
    // thread's executions of a pc in order, so their rank is n.
    std::stable_sort(g_recs.begin(), g_recs.end(), [](const Rec& a, const Rec& b) {
        if (a.block != b.block) return a.block < b.block;
        if (a.tid != b.tid) return a.tid < b.tid;
        if (a.pc != b.pc) return a.pc < b.pc;
        return a.epoch < b.epoch;
    });
    for (size_t i = 0; i < g_recs.size(); ++i) {
        const bool same = i > 0 && g_recs[i - 1].block == g_recs[i].block && g_recs[i - 1].tid == g_recs[i].tid &&
                          g_recs[i - 1].pc == g_recs[i].pc && g_recs[i - 1].epoch == g_recs[i].epoch;
        g_recs[i].occ = same ? g_recs[i - 1].occ + 1 : 0;
    }
}

// ---- scalar shared accesses that nvcc issues as one vector access ----
// nvcc turns scalar shared loads or stores at adjacent addresses that it can prove 16-byte
// (8-byte) aligned, e.g. an unrolled loop's s[4k], s[4k+1], s[4k+2], s[4k+3], into one LDS.128 /
// STS.128 (.64): one request instead of four, served a half-warp at a time (a broadcast LDS.128
// is 2 wavefronts, four scalar broadcasts 4). It decides once per instruction, so a run is merged
// only where every execution of its instructions, by every thread of the launch, forms it.
// A run (chain) is a thread's shared accesses of one kind and size (4 or 8 bytes, not atomic) at
// ascending adjacent addresses within one barrier epoch, in execution order, other accesses
// between them allowed (a GEMM's A-row loads between its B-column ones). An access continues the
// chain its own instruction extended last (a loop's next step: one instruction in the profiler's
// program, unrolled by nvcc, which unrolls constant and runtime trip counts alike), else any chain
// that ends just below it (the next instruction of an unrolled run). The chains of one leading
// instruction are merged if all start at a 16- (8-) byte boundary and none of their instructions is
// ever part of a chain another instruction leads; then each is cut into the widest aligned groups
// (16, 8 bytes; three words left at a 16-byte boundary are read as one LDS.128 where the fourth is
// still the variable's, as nvcc does), a group being one record at its first address with a pc
// of its own (kPcMerged*: a loop's groups and its scalar steps are different instructions).
// Alignment is counted from the shared variable's start (ptxas places variables; the emulator's
// are only as aligned as their type). Known limits: alignment is seen, not proven (a run aligned
// only because of a guard, e.g. lane 0's s[threadIdx.x + l], is merged, nvcc keeps it scalar), and
// a branch between a run's accesses (nvcc merges within a basic block) is not seen.
constexpr uint32_t kPcMerged16 = 1u << 30, kPcMerged8 = 1u << 29;  // code addresses are < 2^29

void merge_shared_runs() {
    // the candidates (shared, not atomic, 4 or 8 bytes), each thread's together in execution order
    std::vector<uint32_t> idx;
    for (size_t i = 0; i < g_recs.size(); ++i) {
        const Rec& r = g_recs[i];
        if ((r.flags & F_SHARED) && !(r.flags & F_ATOMIC) && (r.bytes == 4 || r.bytes == 8))
            idx.push_back(static_cast<uint32_t>(i));
    }
    if (idx.size() < 2) return;
    std::stable_sort(idx.begin(), idx.end(), [](uint32_t a, uint32_t b) {
        const Rec &x = g_recs[a], &y = g_recs[b];
        return x.block != y.block ? x.block < y.block : x.tid < y.tid;
    });
    struct Chain {
        uint64_t next;     // the address that would continue it
        uint32_t leader;   // its first access's pc
        uint32_t len, left;  // its records; those still to come of the merged group being read
        uint8_t phase;
    };
    const size_t n = idx.size();
    std::vector<Chain> chains;
    std::vector<uint32_t> chain_of(n), pos(n, 0);  // per candidate, in idx's order
    std::unordered_map<uint64_t, uint32_t> ending_at;  // (next address, kind, size) → an open chain
    std::unordered_map<uint32_t, uint32_t> last_of_pc;  // pc → the chain it extended last
    auto key = [](uint64_t addr, const Rec& r) { return addr << 2 | (r.flags & F_WRITE ? 2u : 0u) | (r.bytes == 8); };
    for (size_t j = 0; j < n; ++j) {
        const Rec& r = g_recs[idx[j]];
        if (j == 0 || r.block != g_recs[idx[j - 1]].block || r.tid != g_recs[idx[j - 1]].tid ||
            r.epoch != g_recs[idx[j - 1]].epoch) {
            ending_at.clear();
            last_of_pc.clear();
        }
        const uint64_t k = key(r.addr, r);
        uint32_t c = UINT32_MAX;
        auto own = last_of_pc.find(r.pc);
        if (own != last_of_pc.end() && key(chains[own->second].next, r) == k) c = own->second;
        if (c == UINT32_MAX) {
            auto e = ending_at.find(k);
            if (e != ending_at.end()) c = e->second;
        }
        if (c == UINT32_MAX) {
            c = static_cast<uint32_t>(chains.size());
            chains.push_back(Chain{r.addr + r.bytes, r.pc, 1, 0, r.phase});
        } else {
            auto e = ending_at.find(k);
            if (e != ending_at.end() && e->second == c) ending_at.erase(e);
            pos[j] = chains[c].len++;
            chains[c].next = r.addr + r.bytes;
        }
        chain_of[j] = c;
        ending_at.emplace(key(chains[c].next, r), c);
        last_of_pc[r.pc] = c;
    }
    // Per leading instruction: the alignment all its chains start at, and whether each of their
    // instructions is only ever part of chains it leads (else nvcc could not merge it).
    struct Lead { uint32_t align = 16; bool mixed = false; };
    std::unordered_map<uint32_t, Lead> leads;
    for (const Chain& ch : chains) {
        Lead& l = leads[ch.leader];
        l.align = std::min<uint32_t>(l.align, ch.phase % 16 == 0 ? 16 : ch.phase % 8 == 0 ? 8 : 4);
    }
    std::unordered_map<uint32_t, uint32_t> leader_of;
    for (size_t j = 0; j < n; ++j) {
        const uint32_t lead = chains[chain_of[j]].leader;
        auto seen = leader_of.emplace(g_recs[idx[j]].pc, lead);
        if (!seen.second && seen.first->second != lead) leads[lead].mixed = leads[seen.first->second].mixed = true;
    }
    size_t merged = 0;
    for (size_t j = 0; j < n; ++j) {
        Chain& ch = chains[chain_of[j]];
        const Lead& l = leads[ch.leader];
        Rec& r = g_recs[idx[j]];
        const uint32_t size = r.bytes;
        if (ch.len < 2 || l.mixed || l.align <= size) continue;
        if (ch.left) {  // part of the group its head stands for
            --ch.left;
            r.bytes = 0;  // dropped below
            ++merged;
            continue;
        }
        // the widest aligned group that fits; three words left at a 16-byte boundary are
        // loaded as four (LDS.128) where the fourth is still the variable's, as nvcc does
        const uint32_t at = pos[j] * size, rest = (ch.len - pos[j]) * size;
        const bool widen = rest == 12 && !(r.flags & F_WRITE) && (r.flags & F_ROOM16);
        for (uint32_t w = 16; w > size; w /= 2)
            if (w <= l.align && at % w == 0 && (rest >= w || (w == 16 && widen))) {
                r.bytes = static_cast<uint16_t>(w);
                r.pc |= w == 16 ? kPcMerged16 : kPcMerged8;
                ch.left = std::min(w, rest) / size - 1;
                break;
            }
    }
    if (!merged) return;
    const size_t before = g_recs.size();
    g_recs.erase(std::remove_if(g_recs.begin(), g_recs.end(), [](const Rec& r) { return r.bytes == 0; }), g_recs.end());
    // lane accesses as a GPU issues them; past the record cap (truncated) in the recorded ones'
    // proportion, so that records ÷ accesses still says what share of the launch was counted
    const uint64_t unrecorded = g_accesses - before;
    g_accesses = g_recs.size() + (g_truncated ? unrecorded * g_recs.size() / before : unrecorded);
}

// ---- basic blocks (warp execution efficiency over all executed code) ----
// pc (the trace call's return address) → dense index: open addressing, the check build is
// single-threaded. At most kMaxBlocks distinct basic blocks are counted (past it: bb_dropped).
constexpr size_t kMaxBlocks = size_t(1) << 15;
constexpr size_t kSlots = kMaxBlocks * 2;
std::vector<uint64_t> g_slot_pc;    // 0: empty
std::vector<uint32_t> g_slot_idx;
std::vector<uint64_t> g_bb_pc;      // index → pc
std::vector<uint32_t> g_bb_bytes;   // index → code bytes (0: not measured yet)
std::vector<uint8_t> g_bb_loop;     // index → a one-block loop (code_bytes)
std::vector<uint32_t> g_bb_work;    // index → code bytes less the instrumentation's (work_bytes)
std::vector<std::vector<uint32_t>> g_lane_bb;  // thread of the running block → executions per index
size_t g_block_threads_seen = 0;    // threads of the running block that entered a basic block: [0, n)
std::vector<uint64_t> g_bb_warp, g_bb_lanes, g_bb_pred_lanes;  // this launch, per index
uint64_t g_bb_dropped = 0;

uint32_t bb_index(uint64_t pc) {
    if (g_slot_pc.empty()) {
        g_slot_pc.assign(kSlots, 0);
        g_slot_idx.assign(kSlots, 0);
    }
    size_t h = (pc * 0x9E3779B97F4A7C15ull) >> 48;  // 16 bits: kSlots is 2^16
    for (;; h = (h + 1) & (kSlots - 1)) {
        if (g_slot_pc[h] == pc) return g_slot_idx[h];
        if (g_slot_pc[h] == 0) break;
    }
    if (g_bb_pc.size() >= kMaxBlocks) return UINT32_MAX;
    g_slot_pc[h] = pc;
    g_slot_idx[h] = static_cast<uint32_t>(g_bb_pc.size());
    g_bb_pc.push_back(pc);
    g_bb_bytes.push_back(0);
    g_bb_loop.push_back(0);
    g_bb_work.push_back(0);
    return g_slot_idx[h];
}

extern "C" void __sanitizer_cov_trace_pc();
extern "C" void __tsan_func_exit();
#define KDOJO_HOOKS(N)                                                                             \
    extern "C" void __tsan_read##N(void*);                                                         \
    extern "C" void __tsan_write##N(void*);                                                        \
    extern "C" void __tsan_unaligned_read##N(void*);                                               \
    extern "C" void __tsan_unaligned_write##N(void*);                                              \
    extern "C" void __tsan_volatile_read##N(void*);                                                \
    extern "C" void __tsan_volatile_write##N(void*);
KDOJO_HOOKS(1)
KDOJO_HOOKS(2)
KDOJO_HOOKS(4)
KDOJO_HOOKS(8)
KDOJO_HOOKS(16)
#undef KDOJO_HOOKS
extern "C" void __tsan_read_range(void*, size_t);
extern "C" void __tsan_write_range(void*, size_t);

// The instrumentation's own bytes in [p, p + n): a call of a memory hook with the instruction
// that loads its argument, the alignment check before an access (test $1/3/7/15, jne to the
// ubsan handler) and a thread-pointer load (mov %fs:0, reg) that only feeds a hook's argument.
// A GPU has none of them: a block's weight is what is left (work_bytes).
bool is_hook(uint64_t to) {
    static const uint64_t hooks[] = {
#define KDOJO_H(N)                                                                                  \
    reinterpret_cast<uint64_t>(&__tsan_read##N), reinterpret_cast<uint64_t>(&__tsan_write##N),      \
        reinterpret_cast<uint64_t>(&__tsan_unaligned_read##N),                                      \
        reinterpret_cast<uint64_t>(&__tsan_unaligned_write##N),                                     \
        reinterpret_cast<uint64_t>(&__tsan_volatile_read##N), reinterpret_cast<uint64_t>(&__tsan_volatile_write##N),
        KDOJO_H(1) KDOJO_H(2) KDOJO_H(4) KDOJO_H(8) KDOJO_H(16)
#undef KDOJO_H
        reinterpret_cast<uint64_t>(&__tsan_read_range), reinterpret_cast<uint64_t>(&__tsan_write_range)};
    for (uint64_t h : hooks)
        if (h == to) return true;
    return false;
}

uint32_t instrumentation_bytes(const unsigned char* p, uint32_t n, uint64_t base) {
    uint32_t got = 0;
    for (uint32_t d = 0; d < n; ++d) {
        if (p[d] == 0xe8 && d + 5 <= n) {
            int32_t rel;
            memcpy(&rel, p + d + 1, 4);
            if (!is_hook(base + d + 5 + static_cast<int64_t>(rel))) continue;
            uint32_t arg = 0;  // the argument's load just before: mov %reg,%rdi / lea …,%rdi
            if (d >= 3 && (p[d - 3] == 0x48 || p[d - 3] == 0x4c) && p[d - 2] == 0x89 && (p[d - 1] & 0xc7) == 0xc7) arg = 3;
            else if (d >= 4 && (p[d - 4] == 0x48 || p[d - 4] == 0x49) && p[d - 3] == 0x8d && (p[d - 2] & 0xf8) == 0x78) arg = 4;
            else if (d >= 7 && (p[d - 7] == 0x48 || p[d - 7] == 0x49) && p[d - 6] == 0x8d && ((p[d - 5] & 0xf8) == 0xb8 || p[d - 5] == 0x3d)) arg = 7;
            got += 5 + arg;
            d += 4;
        } else if (p[d] == 0x64 && d + 9 <= n && (p[d + 1] & 0xf8) == 0x48 && p[d + 2] == 0x8b && (p[d + 3] & 0xc7) == 0x04 &&
                   p[d + 4] == 0x25 && !p[d + 5] && !p[d + 6] && !p[d + 7] && !p[d + 8]) {  // mov %fs:0x0, reg
            got += 9;
            d += 8;
        } else if (p[d] == 0x0f && p[d + 1] == 0x85 && d + 6 <= n && d >= 3) {  // jne rel32 after test $imm8
            const unsigned char imm = p[d - 1];
            const bool small = imm == 1 || imm == 3 || imm == 7 || imm == 15;
            uint32_t test = 0;
            if (small && d >= 4 && (p[d - 4] & 0xf0) == 0x40 && p[d - 3] == 0xf6 && (p[d - 2] & 0xf8) == 0xc0) test = 4;
            else if (small && p[d - 3] == 0xf6 && (p[d - 2] & 0xf8) == 0xc0) test = 3;
            else if (small && p[d - 2] == 0xa8) test = 2;
            if (test) got += test + 6;
            d += 5;
        }
    }
    return std::min(got, n);
}

// The basic block's code: from its trace call's return address to the next trace call or the
// function's exit hook (both direct `call rel32`, the static program's only form), at most 256
// bytes, so a function's prologue, epilogue and cold paths weigh nothing (a GPU inlines device
// functions). `loop`: the block ends with a jump back to its own start (a one-block loop).
uint32_t code_bytes(uint64_t ret, bool& loop) {
    const auto trace = reinterpret_cast<uint64_t>(&__sanitizer_cov_trace_pc);
    const auto exit = reinterpret_cast<uint64_t>(&__tsan_func_exit);
    const auto* p = reinterpret_cast<const unsigned char*>(ret);
    const uint64_t start = ret - 5;  // the trace call: where a jump back to this block lands
    loop = false;
    for (uint32_t d = 0; d < 256; ++d) {
        if (p[d] != 0xe8) continue;
        int32_t rel;
        memcpy(&rel, p + d + 1, 4);
        const uint64_t to = ret + d + 5 + static_cast<int64_t>(rel);
        if (to != trace && to != exit) continue;
        const uint64_t end = ret + d;
        if (d >= 2 && ((p[d - 2] >= 0x70 && p[d - 2] <= 0x7f) || p[d - 2] == 0xeb))  // jcc / jmp rel8
            loop |= end + static_cast<int8_t>(p[d - 1]) == start;
        if (d >= 6 && p[d - 6] == 0x0f && p[d - 5] >= 0x80 && p[d - 5] <= 0x8f) {  // jcc rel32
            int32_t j;
            memcpy(&j, p + d - 4, 4);
            loop |= end + static_cast<int64_t>(j) == start;
        }
        return std::max<uint32_t>(d, 1);
    }
    return 256;
}

// A CUDA block is over: fold its lanes' counts into warp and thread executions. Also the
// thread executions as if a GPU compiler had predicated short branches instead of jumping
// (if-conversion: a basic block of at most kPredicatedBytes, not a loop, entered by only some of
// the warp's lanes, issued with all of them, which is how ncu counts a predicated-off lane: active).
constexpr uint32_t kPredicatedBytes = 64;
uint32_t bytes_of(size_t i) {
    if (!g_bb_bytes[i]) {
        bool loop;
        g_bb_bytes[i] = code_bytes(g_bb_pc[i], loop);
        g_bb_loop[i] = loop;
        g_bb_work[i] = std::max<uint32_t>(1, g_bb_bytes[i] - instrumentation_bytes(
            reinterpret_cast<const unsigned char*>(g_bb_pc[i]), g_bb_bytes[i], g_bb_pc[i]));
    }
    return g_bb_bytes[i];
}

void fold_block_bbs() {
    std::vector<uint32_t> most_of, entered_of, mask_of;
    std::vector<uint64_t> sum_of;
    for (size_t w0 = 0; w0 < g_block_threads_seen; w0 += 32) {
        size_t end = std::min(g_block_threads_seen, w0 + 32), n = 0, lanes = 0;
        for (size_t l = w0; l < end; ++l) {
            n = std::max(n, g_lane_bb[l].size());
            lanes += !g_lane_bb[l].empty();
        }
        if (g_bb_warp.size() < n) {
            g_bb_warp.resize(n, 0);
            g_bb_lanes.resize(n, 0);
            g_bb_pred_lanes.resize(n, 0);
        }
        most_of.assign(n, 0);
        entered_of.assign(n, 0);
        mask_of.assign(n, 0);
        sum_of.assign(n, 0);
        uint32_t most_full = 0;  // the most executions of a block that all of the warp's lanes entered
        for (size_t i = 0; i < n; ++i) {
            for (size_t l = w0; l < end; ++l) {
                const std::vector<uint32_t>& v = g_lane_bb[l];
                uint32_t c = i < v.size() ? v[i] : 0;
                most_of[i] = std::max(most_of[i], c);
                sum_of[i] += c;
                entered_of[i] += c != 0;
                if (c) mask_of[i] |= 1u << (l - w0);
            }
            if (most_of[i] && entered_of[i] == lanes) most_full = std::max(most_full, most_of[i]);
        }
        // Not if-converted: a branch holding a loop of its own, i.e. blocks that some lanes run
        // more often than any block the whole warp runs (one lane's loop), and every block entered
        // by exactly those lanes (the branch's code before and after that loop): a GPU jumps there.
        std::vector<uint32_t> jumped;
        for (size_t i = 0; i < n; ++i)
            if (most_of[i] > most_full && entered_of[i] < lanes) jumped.push_back(mask_of[i]);
        for (size_t i = 0; i < n; ++i) {
            const uint32_t most = most_of[i];
            g_bb_warp[i] += most;
            g_bb_lanes[i] += sum_of[i];
            bool predicated = most && entered_of[i] < lanes && bytes_of(i) <= kPredicatedBytes &&
                              !g_bb_loop[i] && most <= most_full &&
                              std::find(jumped.begin(), jumped.end(), mask_of[i]) == jumped.end();
            g_bb_pred_lanes[i] += predicated ? uint64_t(most) * lanes : sum_of[i];
        }
        for (size_t l = w0; l < end; ++l) g_lane_bb[l].clear();
    }
    g_block_threads_seen = 0;
}

// (warp executions, thread executions) of the launch's basic blocks: unweighted, then by code bytes.
void bb_totals(Totals& t) {
    fold_block_bbs();
    for (size_t i = 0; i < g_bb_warp.size(); ++i) {
        if (!g_bb_warp[i]) continue;
        const uint64_t bytes = bytes_of(i), work = g_bb_work[i];
        t.v[BB_INST] += g_bb_warp[i];
        t.v[BB_LANES] += g_bb_lanes[i];
        t.v[CODE_INST] += g_bb_warp[i] * bytes;
        t.v[CODE_LANES] += g_bb_lanes[i] * bytes;
        t.v[CODE_PRED_LANES] += g_bb_pred_lanes[i] * bytes;
        t.v[BB_PRED_LANES] += g_bb_pred_lanes[i];
        t.v[WORK_INST] += g_bb_warp[i] * work;
        t.v[WORK_LANES] += g_bb_lanes[i] * work;
        t.v[WORK_PRED_LANES] += g_bb_pred_lanes[i] * work;
    }
    t.v[BB_DROPPED] = g_bb_dropped;
    g_bb_warp.clear();
    g_bb_lanes.clear();
    g_bb_pred_lanes.clear();
}

Totals fold() {
    Totals t;
    merge_shared_runs();
    count_rounds(t);  // in execution order: before the sorts below
    assign_occurrences();
    std::sort(g_recs.begin(), g_recs.end(), [](const Rec& a, const Rec& b) {
        if (a.block != b.block) return a.block < b.block;
        if (a.tid / 32 != b.tid / 32) return a.tid / 32 < b.tid / 32;
        if (a.pc != b.pc) return a.pc < b.pc;
        if (a.epoch != b.epoch) return a.epoch < b.epoch;
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
               g_recs[j].pc == k.pc && g_recs[j].epoch == k.epoch && g_recs[j].occ == k.occ)
            ++j;
        uint64_t lanes = j - i;  // one record per lane: occ makes (tid, pc, epoch, occ) unique
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
    t.v[BLOCKS] = g_blocks_run;  // the counts are of these blocks (kernels/profile_emu.py scales them up)
    bb_totals(t);
    return t;
}


}  // namespace

void profile_request_begin() { g_launch_index = 0; }

uint64_t profile_block_count(uint64_t blocks) {
    g_sample_order.clear();
    g_blocks_run = 0;
    // a grid within the sample runs whole, in the same spread order (it may stop at the records' room)
    const uint64_t n = std::min<uint64_t>(g_profile_sample, blocks);
    if (!g_profile || n < 2) return blocks;
    // positions j = 0 .. n-1 at block j (blocks-1) / (n-1); first and last, then the others in
    // bit-reversed order of j (the middle, the quarters, the eighths, ...)
    unsigned bits = 0;
    while ((uint64_t(1) << bits) < n) ++bits;
    auto reversed = [bits](uint64_t j) {
        uint64_t r = 0;
        for (unsigned b = 0; b < bits; ++b) r |= ((j >> b) & 1) << (bits - 1 - b);
        return r;
    };
    std::vector<uint64_t> inner;
    for (uint64_t j = 1; j + 1 < n; ++j) inner.push_back(j);
    std::stable_sort(inner.begin(), inner.end(), [&](uint64_t a, uint64_t b) { return reversed(a) < reversed(b); });
    auto at = [&](uint64_t j) { return static_cast<uint64_t>((unsigned __int128)j * (blocks - 1) / (n - 1)); };
    g_sample_order = {at(0), at(n - 1)};
    for (uint64_t j : inner) g_sample_order.push_back(at(j));
    return n;
}

uint64_t profile_block_at(uint64_t k) {
    ++g_blocks_run;
    return g_sample_order.empty() ? k : g_sample_order[k];
}

bool profile_sample_room() { return g_sample_order.empty() || g_recs.size() < kMaxRecords / 2; }

void profile_launch_begin() {
    g_recs.clear();
    g_truncated = false;
    g_accesses = 0;
    g_fragment = false;
    g_frag.clear();
    g_frag_totals = Totals{};
    g_frag_read.clear();
    g_frag_write.clear();
    g_frag_rounds.clear();
    g_frag_loaded.clear();
    g_block_threads_seen = 0;
    g_bb_warp.clear();
    g_bb_lanes.clear();
    g_bb_pred_lanes.clear();
    g_bb_dropped = 0;
    ++g_launch_index;
}

void profile_block_begin() {
    if (g_profile) fold_block_bbs();
}

void profile_basic_block(uint64_t pc) {
    Thread* t = current_thread();
    if (!t || !g_block_linear) return;
    uint32_t i = bb_index(pc);
    if (i == UINT32_MAX) {
        ++g_bb_dropped;
        return;
    }
    size_t lane = t->st.linear;
    if (lane >= g_lane_bb.size()) g_lane_bb.resize(lane + 1);
    g_block_threads_seen = std::max(g_block_threads_seen, lane + 1);
    std::vector<uint32_t>& v = g_lane_bb[lane];
    if (i >= v.size()) v.resize(i + 1, 0);
    ++v[i];
}

void profile_fragment(bool on, int pattern) {
    if (!g_profile) return;
    if (on) {
        g_fragment = true;
        g_frag_pattern = pattern;
        g_frag.clear();
        return;
    }
    g_fragment = false;
    if (!g_frag.empty()) fold_fragment();
}

void profile_access(bool shared, uintptr_t addr, size_t bytes, bool write, bool atomic, uint64_t pc, uintptr_t base,
                    uintptr_t end) {
    Thread* t = current_thread();
    if (!t || !bytes) return;
    if (g_fragment) {  // a WMMA fragment op: lane 0's accesses stand for the warp's (fold_fragment)
        if (t->st.linear % 32 == 0 && g_frag.size() < (size_t(1) << 16))
            g_frag.push_back(Rec{addr, pc32(pc), g_block_linear, t->bar_epoch, 0, static_cast<uint16_t>(t->st.linear),
                                 static_cast<uint16_t>(std::min<size_t>(bytes, 65535)),
                                 uint8_t((shared ? F_SHARED : 0) | (write ? F_WRITE : 0))});
        return;
    }
    ++g_accesses;
    if (g_recs.size() >= kMaxRecords) {
        g_truncated = true;
        return;
    }
    uint8_t flags = (shared ? F_SHARED : 0) | (write ? F_WRITE : 0) | (atomic ? F_ATOMIC : 0) |
                    (shared && ((addr - base) | 15) < end - base ? F_ROOM16 : 0);
    g_recs.push_back(Rec{addr, pc32(pc), g_block_linear, t->bar_epoch, t->collectives,
                         static_cast<uint16_t>(t->st.linear), static_cast<uint16_t>(std::min<size_t>(bytes, 65535)),
                         flags, static_cast<uint8_t>(shared ? (addr - base) & 15 : 0)});
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
uint64_t profile_block_count(uint64_t blocks) { return blocks; }
uint64_t profile_block_at(uint64_t k) { return k; }
bool profile_sample_room() { return true; }
void profile_launch_begin() {}
void profile_access(bool, uintptr_t, size_t, bool, bool, uint64_t, uintptr_t, uintptr_t) {}
void profile_launch_end() {}
void profile_fragment(bool, int) {}
void profile_block_begin() {}

#endif

}  // namespace kdojo

#ifdef KDOJO_CHECK
// GCC's -fsanitize-coverage=trace-pc (the check build's learner code): every basic block.
// A source with `volatile` reconverges its warps' lockstep at loops' back edges (warp_branch).
extern "C" void __sanitizer_cov_trace_pc() {
    kdojo::warp_branch(reinterpret_cast<uintptr_t>(__builtin_return_address(0)),
                       reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa()));
    if (__builtin_expect(!kdojo::g_profile, 1)) return;
    kdojo::profile_basic_block(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
}
#endif
