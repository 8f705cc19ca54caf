// Kernel Dojo CPU emulator: state shared by the scheduler (kdojo_rt.cpp),
// the memory checker (kdojo_check.cpp) and the host side (kdojo_host.cpp).
// Never seen by learner code.
#pragma once
#define KDOJO_RUNTIME_IMPL 1
#include "kdojo_cuda.h"

#include <string>
#include <vector>

namespace kdojo {

// T_AMASK: waiting in __activemask() for the rest of its warp (kdojo_rt.cpp).
// T_WSTEP: before a volatile access, waiting for the rest of its warp (warp_step).
// T_RECONV: at a loop's back edge, waiting for the rest of its warp (warp_branch).
enum ThreadStateKind : unsigned char { T_NEW, T_RUNNABLE, T_BARRIER, T_COLL, T_DONE, T_FAULT, T_AMASK, T_WSTEP, T_RECONV };

struct Thread {
    ThreadState st;  // first member: g_cur points here
    void* ctx;       // suspended fcontext
    void* stack;     // stack base (lowest address) while the fiber lives
    unsigned char state;
    int line;        // barrier / collective line
    int kind;        // collective kind
    unsigned mask;
    int arg;
    int width;
    uint64_t value;
    uint64_t result;
    uint32_t bar_epoch;   // barriers this thread has passed in this block
    uint32_t sync_epoch;  // warp collectives this lane has completed
    uint32_t collectives; // shuffles, votes, matches and reductions this lane took part in (the profiler's)
    // Lockstep (a source with `volatile`): T_RECONV's loop head (where its back edge jumps);
    // the last code address seen in each of the lane's innermost frames (by the caller's
    // CFA), and whether the lane has taken a volatile access.
    uintptr_t step_head;
    uintptr_t frame_cfa[4], frame_pc[4];
    unsigned char frames, stepped;
};

struct BufferRegion {
    std::string name;
    unsigned char* base;      // whole guarded array (guard | payload | guard)
    uint64_t total_bytes;
    uint64_t payload_offset;
    uint64_t payload_bytes;
    unsigned elem_bytes;
};

struct Diag {
    std::string kind;
    int line;
    uint64_t pc;  // symbolised by the host side when line is 0
    std::string message;
};

struct Fault {
    bool set = false;
    std::string name;
    std::string message;
    int line = 0;
    uint64_t pc = 0;
};

// What a run finds: the first fault, the diagnostics (deduplicated, at most
// 32) and the device printf output (at most kOutputCapBytes).
constexpr size_t kOutputCapBytes = 16 * 1024;
struct Sink {
    Fault fault;
    std::vector<Diag> diags;
    std::string output;
    bool output_truncated = false;
};
extern Sink g_sink;                  // the request's: what the response carries
extern KDOJO_TLS Sink* t_sink;       // where this OS thread's findings go (&g_sink,
                                     // or a chunk's own while blocks run in parallel)
extern std::vector<BufferRegion> g_buffers;
extern KDOJO_TLS uint32_t g_block_linear;  // 1-based id of the running block (0: none)
extern unsigned g_block_threads;
extern uint64_t g_dyn_smem_bytes;
extern uint64_t g_dyn_smem_map_bytes;  // the mapping each block's dynamic shared memory gets
extern bool g_adversarial;           // reverse thread and block order

// Appends device printf output to `s`, keeping its first kOutputCapBytes.
void emit_output(Sink& s, const char* text, size_t len);

// Worker threads for running a launch's blocks in parallel (fast build only).
// Started by the sandbox's constructor, before the process limit and the
// seccomp filter forbid creating threads; none where one CPU is available.
void start_workers(unsigned* count);

Thread* current_thread();
bool in_current_stack(uintptr_t addr);
[[noreturn]] void fail_in_fiber(const char* name, const std::string& message, int line, uint64_t pc);
void set_fault(const char* name, const std::string& message, int line, uint64_t pc);
void add_diag(const char* kind, int line, uint64_t pc, const std::string& message);

// SIGSEGV/SIGBUS report their instruction and address on stderr (installed by
// the sandbox's constructor, before seccomp forbids sigaction).
void install_fault_handler();

// Before each volatile load or store of the learner's code (GCC's
// -fsanitize=thread with tsan-distinguish-volatile, kernels/emu/build.py): the
// warp's lanes take their volatile accesses in lockstep, as a converged warp
// does, so the warp-synchronous idiom (the classic unrolled last-warp
// reduction through a volatile pointer, no __syncwarp) computes what it does
// on a GPU. A lane's own stack is exempt. `pc`: the access's code address,
// `cfa`: its function's frame (the caller's __builtin_dwarf_cfa()).
void warp_step(uintptr_t addr, uintptr_t pc, uintptr_t cfa);
// At the start of each basic block of the learner's code (-fsanitize-coverage=trace-pc,
// a source with `volatile` only): a jump back to a lower address in the same frame is a
// loop's back edge, where a lane that took volatile accesses waits for its warp to
// reconverge (kdojo_rt.cpp: release_lockstep).
void warp_branch(uintptr_t pc, uintptr_t cfa);

// Memory checker hooks (no-ops in the fast build).
void check_launch_begin();
void check_block_begin();
void check_launch_end();

}  // namespace kdojo
