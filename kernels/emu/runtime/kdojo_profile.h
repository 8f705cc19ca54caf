// Kernel Dojo CPU emulator: the profiler's counters (#16), fed by the check
// build's memory hooks (kdojo_check.cpp) when a request asks for them (mode
// bit 2, see kernels/emu/protocol.py). Never seen by learner code.
#pragma once
#include <cstddef>
#include <cstdint>

namespace kdojo {

extern bool g_profile;  // this request counts (set per request by kdojo_host.cpp)
// Blocks a counted launch runs at most (#26): 0, all of them; else a sample of the grid's blocks
// (the request's mode bits 8-31, kernels/profile_emu.py), so a benchmark-size grid can be counted.
extern uint32_t g_profile_sample;

// The blocks the launch runs: all of them, or the sample's size (a counted launch, #26).
uint64_t profile_block_count(uint64_t blocks);
// The k-th block to run (linear index): k, or the sample's k-th (first, last, then evenly spaced
// ever finer between them, so any prefix of the sample is spread over the whole grid).
uint64_t profile_block_at(uint64_t k);
// False once a sampled launch has recorded half the record cap: the next block starts no more.
bool profile_sample_room();

void profile_request_begin();
void profile_launch_begin();
// One load, store or atomic of learner code on a judge buffer (global) or on
// shared memory, by the running thread of the running block. [base, end): the array or
// shared variable it is in (alignment is counted from its start).
void profile_access(bool shared, uintptr_t addr, size_t bytes, bool write, bool atomic, uint64_t pc, uintptr_t base,
                    uintptr_t end);
// Folds the launch's accesses into per-warp-instruction metrics and adds them
// to the answer as one "profile" diagnostic (pc: the launch's 1-based index).
void profile_launch_end();
// A CUDA block starts: folds the last block's per-lane basic-block counts into per-warp ones.
void profile_block_begin();
// The running thread entered the basic block whose trace call returns to `pc`.
void profile_basic_block(uint64_t pc);

}  // namespace kdojo
