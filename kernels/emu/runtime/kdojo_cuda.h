// Kernel Dojo CPU emulator: the CUDA device surface a learner's kernel sees.
//
// The learner's source is pasted after this header inside `namespace kdojo_user`
// (see kernels/emu/source.py); every CUDA thread runs as a fiber scheduled by
// kdojo_rt.cpp. Only what is declared here (and the few system headers it
// includes) is reachable from learner code. Anything CUDA offers that is not
// here fails to compile; kernels/emu/source.py turns the commonest ones into
// a message that says "not supported by the emulator".
#pragma once

// C++17's special functions (<cmath>'s Bessel functions, zeta, ...) exist in no
// CUDA device library; leaving them out takes a third off every submission's
// compile (24k -> 16k preprocessed lines for block_sum).
#if __has_include(<bits/c++config.h>)
#include <bits/c++config.h>
#undef _GLIBCXX_USE_STD_SPEC_FUNCS
#define _GLIBCXX_USE_STD_SPEC_FUNCS 0
#endif

#include <stdint.h>
#include <stddef.h>
#include <cstdint>  // std::uint32_t … (<cstdint> / <cuda/std/cstdint> on NVRTC name them in std too)
#include <cstddef>
#include <string.h>
#include <math.h>
#include <float.h>
#include <limits.h>
#include <sys/types.h>  // `uint`, which nvcc's host headers make visible too
#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

// <cuda/std/…>: libcu++ is the C++ standard library's names for device code;
// on the CPU those are the standard library's own.
namespace cuda { namespace std {
using namespace ::std;
// libcu++ has these in every header that needs them (<cuda/std/functional> …);
// declared here, they are found before the using-directive's (<algorithm> is not included).
template <class T> constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <class T> constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }
template <class T> constexpr const T& clamp(const T& v, const T& lo, const T& hi) { return v < lo ? lo : hi < v ? hi : v; }
} }

#include "kdojo_types.h"

namespace kdojo {

// ---- per-thread and per-launch state (owned by kdojo_rt.cpp) -------------
struct Fiber;
struct ThreadState {
    uint3 idx;          // threadIdx
    unsigned linear;    // x + y*bx + z*bx*by
    unsigned lane;      // linear % 32
    unsigned warp;      // linear / 32
};
// Per OS thread (the fast build runs blocks on several workers; a block and
// its fibers never leave the worker that started it): one %fs-relative load.
#define KDOJO_TLS __thread __attribute__((tls_model("local-exec")))
extern KDOJO_TLS ThreadState* g_cur;
extern KDOJO_TLS uint3 g_block_idx;
extern dim3 g_block_dim;
extern dim3 g_grid_dim;
extern KDOJO_TLS unsigned char* g_dyn_smem;

// Collective kinds (kdojo_rt.cpp computes their results once all named lanes arrive).
enum CollKind : int {
    COLL_SYNCWARP = 1, COLL_SHFL_IDX, COLL_SHFL_UP, COLL_SHFL_DOWN, COLL_SHFL_XOR,
    COLL_BALLOT, COLL_ANY, COLL_ALL, COLL_MATCH_ANY, COLL_WMMA_FILL, COLL_WMMA_LOAD, COLL_WMMA_STORE,
    COLL_WMMA_MMA,
    // __reduce_{add,min,max,and,or,xor}_sync (arg: 1 when the operands are signed)
    // and __match_all_sync: one value computed over the present lanes.
    COLL_REDUCE_ADD, COLL_REDUCE_MIN, COLL_REDUCE_MAX, COLL_REDUCE_AND, COLL_REDUCE_OR, COLL_REDUCE_XOR,
    COLL_MATCH_ALL
};

void syncthreads(int line);
enum SyncOp : int { SYNC_COUNT, SYNC_AND, SYNC_OR };
// __syncthreads_count / _and / _or: a barrier that also reduces a predicate over the block.
int syncthreads_pred(int line, int pred, int op);
uint64_t collective(int kind, int line, unsigned mask, uint64_t value, int arg, int width);
// the profiler: a WMMA fragment load/store begins (true) or ends (#16); `pattern`: the instructions
// a GPU makes of it, where known (kdojo_profile.cpp fold_shared_fragment)
enum { FRAG_PLAIN = 0, FRAG_LDSM = 1, FRAG_ACC64 = 2 };
void profile_fragment(bool on, int pattern = FRAG_PLAIN);
unsigned activemask(int line);
[[noreturn]] void trap(int line, const char* what);
// Ends the kernel with a runtime_error named `name` (e.g. a grid-wide sync in a
// launch that is not cooperative).
[[noreturn]] void fail(int line, const char* name, const char* what);
// A launch of `threads` per block into a kernel whose __launch_bounds__ allows `bound`.
[[noreturn]] void launch_bound_exceeded(int line, long long threads, long long bound);
// A block's shared memory starts as garbage, as on a GPU: 0xFF bytes (NaN
// floats, -1 integers). Static __shared__ arrays are poisoned by the first
// thread of each block that reaches their declaration (block_serial differs).
extern KDOJO_TLS uint32_t g_block_serial;
void poison_shared(void* p, size_t bytes);
int device_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// Type-erased kernel body: run once per CUDA thread.
using Body = void (*)(void* ctx);
struct LaunchArgs;  // request arguments, decoded by kdojo_rt.cpp
void* arg_pointer(const LaunchArgs* a, int i);
int64_t arg_int(const LaunchArgs* a, int i);
double arg_float(const LaunchArgs* a, int i);
int arg_count(const LaunchArgs* a);
void run_grid(Body body, void* ctx);
void bad_launch(const char* kernel, const char* message);

template <class T>
inline uint64_t to_bits(T v) {
    static_assert(sizeof(T) <= 8, "warp shuffles move at most 8 bytes in the emulator");
    static_assert(std::is_trivially_copyable<T>::value, "warp shuffles need a trivially copyable type");
    uint64_t b = 0;
    memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T>
inline T from_bits(uint64_t b) {
    T v;
    memcpy(&v, &b, sizeof(T));
    return v;
}

// ---- launching a kernel with its own parameter types ----------------------
template <class T>
inline T convert_arg(const LaunchArgs* a, int i) {
    if constexpr (std::is_pointer<T>::value) {
        return reinterpret_cast<T>(arg_pointer(a, i));
    } else if constexpr (std::is_floating_point<T>::value) {
        return static_cast<T>(arg_float(a, i));
    } else if constexpr (std::is_integral<T>::value || std::is_enum<T>::value) {
        return static_cast<T>(arg_int(a, i));
    } else {
        static_assert(std::is_pointer<T>::value, "kernel parameters must be pointers or scalars");
        return T();
    }
}

// The arguments are converted once per launch; every thread calls the kernel with them.
template <class... P>
struct KernelCall {
    void (*fn)(P...);
    std::tuple<std::remove_cv_t<P>...> values;
    static void body(void* self) {
        auto* k = static_cast<KernelCall*>(self);
        k->invoke(std::index_sequence_for<P...>{});
    }
    template <size_t... I>
    void invoke(std::index_sequence<I...>) {
        fn(std::get<I>(values)...);
    }
};

template <class... P, size_t... I>
KernelCall<P...> make_call(void (*fn)(P...), const LaunchArgs* args, std::index_sequence<I...>) {
    return KernelCall<P...>{fn, std::tuple<std::remove_cv_t<P>...>(
                                    convert_arg<std::remove_cv_t<P>>(args, static_cast<int>(I))...)};
}

template <class... P>
void launch(const char* name, void (*fn)(P...), const LaunchArgs* args) {
    if (arg_count(args) != static_cast<int>(sizeof...(P))) {
        bad_launch(name, "the launch plan passes a different number of arguments than the kernel takes");
        return;
    }
    KernelCall<P...> call = make_call(fn, args, std::index_sequence_for<P...>{});
    run_grid(&KernelCall<P...>::body, &call);
}

struct KernelEntry {
    const char* name;
    void (*launch)(const LaunchArgs*);
};

}  // namespace kdojo

// The launcher table, generated per exercise (kernels/emu/launcher.py).
extern const kdojo::KernelEntry kdojo_kernels[];
extern const int kdojo_kernel_count;

#include "kdojo_device.h"
