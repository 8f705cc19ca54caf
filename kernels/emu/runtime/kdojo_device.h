// Kernel Dojo CPU emulator: CUDA keywords, built-in variables, intrinsics,
// atomics and warp collectives, mapped onto the fiber runtime.
//
// Barriers and collectives pass __LINE__ so that a diagnostic names the
// learner's line (the learner's text follows a `#line 1` directive).
#pragma once

#ifndef KDOJO_RUNTIME_IMPL

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) alignas(n)
// Static shared memory is per block: per worker thread in the fast build
// (kdojo_rt.cpp runs blocks on several), one copy in the single-threaded check build.
// kernels/emu/source.py rewrites each declaration it can name into a padded
// KDOJO_SHARED_STATIC the checker knows by name; a `__shared__` left here (a
// declaration a macro spells, or a form the rewrite does not take) is
// KDOJO_SHARED_LOOSE: in the check build it lands in the section `kdojo_shared`,
// which the checker and the profiler treat as one shared region, poisoned at
// every block's start, so such a declaration does not escape the race and
// uninitialised-read checks. GCC places no static of a template or an inline
// function in a named section: a declaration spelled through a macro there is
// still unchecked.
#define __shared__ KDOJO_SHARED_LOOSE
#define __constant__ static
#define __grid_constant__

#define threadIdx (::kdojo::g_cur->idx)
#define blockIdx (::kdojo::g_block_idx)
#define blockDim (::kdojo::g_block_dim)
#define gridDim (::kdojo::g_grid_dim)
#define warpSize 32

#define __syncthreads() ::kdojo::syncthreads(__LINE__)
#define __syncthreads_count(p) ::kdojo::syncthreads_pred(__LINE__, (p) ? 1 : 0, ::kdojo::SYNC_COUNT)
#define __syncthreads_and(p) ::kdojo::syncthreads_pred(__LINE__, (p) ? 1 : 0, ::kdojo::SYNC_AND)
#define __syncthreads_or(p) ::kdojo::syncthreads_pred(__LINE__, (p) ? 1 : 0, ::kdojo::SYNC_OR)
#define __syncwarp(...) ::kdojo::syncwarp_at(__LINE__, ##__VA_ARGS__)
#define __shfl_sync(...) ::kdojo::shfl_at(__LINE__, ::kdojo::COLL_SHFL_IDX, __VA_ARGS__)
#define __shfl_up_sync(...) ::kdojo::shfl_at(__LINE__, ::kdojo::COLL_SHFL_UP, __VA_ARGS__)
#define __shfl_down_sync(...) ::kdojo::shfl_at(__LINE__, ::kdojo::COLL_SHFL_DOWN, __VA_ARGS__)
#define __shfl_xor_sync(...) ::kdojo::shfl_at(__LINE__, ::kdojo::COLL_SHFL_XOR, __VA_ARGS__)
#define __ballot_sync(m, p) static_cast<unsigned>(::kdojo::collective(::kdojo::COLL_BALLOT, __LINE__, (m), (p) ? 1u : 0u, 0, 32))
#define __any_sync(m, p) static_cast<int>(::kdojo::collective(::kdojo::COLL_ANY, __LINE__, (m), (p) ? 1u : 0u, 0, 32))
#define __all_sync(m, p) static_cast<int>(::kdojo::collective(::kdojo::COLL_ALL, __LINE__, (m), (p) ? 1u : 0u, 0, 32))
#define __activemask() ::kdojo::activemask(__LINE__)
#define __reduce_add_sync(m, v) ::kdojo::reduce_sync(__LINE__, ::kdojo::COLL_REDUCE_ADD, (m), (v))
#define __reduce_min_sync(m, v) ::kdojo::reduce_sync(__LINE__, ::kdojo::COLL_REDUCE_MIN, (m), (v))
#define __reduce_max_sync(m, v) ::kdojo::reduce_sync(__LINE__, ::kdojo::COLL_REDUCE_MAX, (m), (v))
#define __reduce_and_sync(m, v) ::kdojo::reduce_sync(__LINE__, ::kdojo::COLL_REDUCE_AND, (m), (v))
#define __reduce_or_sync(m, v) ::kdojo::reduce_sync(__LINE__, ::kdojo::COLL_REDUCE_OR, (m), (v))
#define __reduce_xor_sync(m, v) ::kdojo::reduce_sync(__LINE__, ::kdojo::COLL_REDUCE_XOR, (m), (v))
#define __match_any_sync(m, v) static_cast<unsigned>(::kdojo::collective(::kdojo::COLL_MATCH_ANY, __LINE__, (m), ::kdojo::to_bits(v), 0, 32))
#define __match_all_sync(m, v, pred) ::kdojo::match_all_at(__LINE__, (m), ::kdojo::to_bits(v), (pred))
#define __trap() ::kdojo::trap(__LINE__, "__trap() called")
#define printf(...) ::kdojo::device_printf(__VA_ARGS__)
#undef assert
#define assert(e) ((e) ? (void)0 : ::kdojo::trap(__LINE__, "device-side assert failed: " #e))
// NVCC's (clang's) optimiser hint; GCC has none: the condition is not evaluated, as there.
#if !__has_builtin(__builtin_assume)
#define __builtin_assume(e) ((void)sizeof(e))
#endif

#endif  // KDOJO_RUNTIME_IMPL

#ifdef KDOJO_CHECK
// The profiler's program (#16: the check program's preprocessed source compiled again with
// -fsanitize-coverage, kernels/emu/build.py) counts no basic block of what emulates one GPU
// instruction with many x86 ones: half/bf16 conversions, WMMA fragment ops. There GCC inlines
// neither way between code with and without coverage, so such code stays a call from learner
// code (and inlines into other uncovered code); in the check program itself (no coverage at
// all) the attribute changes nothing.
#define KDOJO_NO_COVERAGE __attribute__((no_sanitize_coverage))
#else
#define KDOJO_NO_COVERAGE
#endif
#ifdef KDOJO_CHECK
// no_sanitize_coverage: the emulator's own plumbing (atomics' read-modify-write, a shared array's
// first use) is no instruction of the learner's kernel: the profiler's basic blocks skip it (#16)
#define KDOJO_UNCHECKED static inline __attribute__((no_sanitize_thread)) KDOJO_NO_COVERAGE
#define KDOJO_SHARED_STATIC static
// `@nobits#`: the section takes no room in the program file, as .bss (the assembler reads
// what GCC appends after the `#` as a comment), so a large array costs no more than a named one.
#define KDOJO_SHARED_LOOSE static __attribute__((section("kdojo_shared,\"aw\",@nobits#")))
#elif defined(KDOJO_VOLATILE_STEPS)  // fast build instrumented for volatile (kernels/emu/build.py)
#define KDOJO_UNCHECKED inline __attribute__((no_sanitize_thread))
#define KDOJO_SHARED_STATIC static thread_local
#define KDOJO_SHARED_LOOSE static thread_local
#else
#define KDOJO_UNCHECKED inline
#define KDOJO_SHARED_STATIC static thread_local
#define KDOJO_SHARED_LOOSE static thread_local
#endif

namespace kdojo {

// A kernel defined with __launch_bounds__(N) starts with this call
// (kernels/emu/source.py): a GPU refuses a launch of more than N threads per block.
KDOJO_UNCHECKED void launch_bound(long long max_threads, int line) {
    long long threads = static_cast<long long>(g_block_dim.x) * g_block_dim.y * g_block_dim.z;
    if (threads > max_threads) launch_bound_exceeded(line, threads, max_threads);
}

inline void syncwarp_at(int line, unsigned mask = 0xffffffffu) {
    collective(COLL_SYNCWARP, line, mask, 0, 0, 32);
}
template <class T>
inline T shfl_at(int line, int kind, unsigned mask, T var, int arg, int width = 32) {
    return from_bits<T>(collective(kind, line, mask, to_bits(var), arg, width));
}
// __reduce_*_sync: CUDA has them for unsigned and int (min/max compare as the type says).
template <class T, class = std::enable_if_t<std::is_integral<T>::value && sizeof(T) <= 4>>
inline T reduce_sync(int line, int kind, unsigned mask, T value) {
    uint64_t bits = static_cast<uint32_t>(value);
    return static_cast<T>(static_cast<uint32_t>(collective(kind, line, mask, bits, std::is_signed<T>::value, 32)));
}
inline unsigned match_all_at(int line, unsigned mask, uint64_t bits, int* pred) {
    unsigned r = static_cast<unsigned>(collective(COLL_MATCH_ALL, line, mask, bits, 0, 32));
    *pred = r != 0;
    return r;
}

#ifdef KDOJO_CHECK
// Atomics are recorded by the checker as atomic (never racing with each other).
// `line` is the learner's line of the call (a defaulted __builtin_LINE() of the
// atomic): the atomic's own code is this header's, so its address names no line.
void note_atomic(const volatile void* p, unsigned bytes, int line);
// A static __shared__ array (with its padding around it) the checker should know.
void note_shared(const void* p, size_t bytes, const char* name);
#define KDOJO_SHARED_REF(store, name) \
    (::kdojo::shared_first_use(store), ::kdojo::note_shared((const void*)&(store).v, sizeof((store).v), name), (store).v)
#else
inline void note_atomic(const volatile void*, unsigned, int) {}
#define KDOJO_SHARED_REF(store, name) (::kdojo::shared_first_use(store), (store).v)
#endif
// The first thread of a block to reach a static __shared__ array's declaration
// fills it with garbage (poison_shared), as a GPU's shared memory starts.
template <class S>
KDOJO_UNCHECKED void shared_first_use(S& store) {
    if (__builtin_expect(store.kdojo_block != g_block_serial, 0)) {
        store.kdojo_block = g_block_serial;
        poison_shared((void*)&store.v, sizeof(store.v));
    }
}

}  // namespace kdojo

// ---- atomics -----------------------------------------------------------------
// Check build: one OS thread, and fibers never interleave inside an atomic, so
// a plain read-modify-write is atomic. Fast build: blocks run on several OS
// threads at once, so every atomic is a real one (relaxed, as on the GPU; a
// compare-and-swap loop for the operations x86 has no instruction for).
namespace kdojo {
template <class T, class F>
KDOJO_UNCHECKED T atomic_rmw(T* p, F f) {
#ifdef KDOJO_CHECK
    T old = *p;
    *p = f(old);
    return old;
#else
    T old, next;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do {
        next = f(old);
    } while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    return old;
#endif
}
}  // namespace kdojo
#define KDOJO_ATOMIC(NAME, T, EXPR) \
    KDOJO_UNCHECKED T NAME(T* p, T v, int kdojo_line = __builtin_LINE()) { \
        ::kdojo::note_atomic(p, sizeof(T), kdojo_line); \
        return ::kdojo::atomic_rmw(p, [v](T old) -> T { return (EXPR); }); \
    } \
    KDOJO_UNCHECKED T NAME##_block(T* p, T v, int kdojo_line = __builtin_LINE()) { return NAME(p, v, kdojo_line); } \
    KDOJO_UNCHECKED T NAME##_system(T* p, T v, int kdojo_line = __builtin_LINE()) { return NAME(p, v, kdojo_line); }
#define KDOJO_ATOMIC_ALL(NAME, EXPR) \
    KDOJO_ATOMIC(NAME, int, EXPR) KDOJO_ATOMIC(NAME, unsigned int, EXPR) \
    KDOJO_ATOMIC(NAME, unsigned long long, EXPR) KDOJO_ATOMIC(NAME, long long, EXPR)

KDOJO_ATOMIC_ALL(atomicAdd, old + v)
KDOJO_ATOMIC(atomicAdd, float, old + v)
KDOJO_ATOMIC(atomicAdd, double, old + v)
KDOJO_ATOMIC_ALL(atomicSub, old - v)
KDOJO_ATOMIC(atomicSub, float, old - v)
KDOJO_ATOMIC(atomicSub, double, old - v)
KDOJO_ATOMIC_ALL(atomicMin, v < old ? v : old)
KDOJO_ATOMIC(atomicMin, float, v < old ? v : old)
KDOJO_ATOMIC(atomicMin, double, v < old ? v : old)
KDOJO_ATOMIC_ALL(atomicMax, v > old ? v : old)
KDOJO_ATOMIC(atomicMax, float, v > old ? v : old)
KDOJO_ATOMIC(atomicMax, double, v > old ? v : old)
KDOJO_ATOMIC_ALL(atomicExch, v)
KDOJO_ATOMIC(atomicExch, float, v)
KDOJO_ATOMIC(atomicExch, double, v)
KDOJO_ATOMIC_ALL(atomicAnd, old & v)
KDOJO_ATOMIC_ALL(atomicOr, old | v)
KDOJO_ATOMIC_ALL(atomicXor, old ^ v)
KDOJO_ATOMIC(atomicInc, unsigned int, (old >= v) ? 0u : old + 1u)
KDOJO_ATOMIC(atomicDec, unsigned int, (old == 0u || old > v) ? v : old - 1u)

#ifdef KDOJO_CHECK
#define KDOJO_CAS_BODY(T) T old = *p; if (old == cmp) *p = v; return old;
#else
#define KDOJO_CAS_BODY(T) __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return cmp;
#endif
#define KDOJO_CAS(T) \
    KDOJO_UNCHECKED T atomicCAS(T* p, T cmp, T v, int kdojo_line = __builtin_LINE()) { \
        ::kdojo::note_atomic(p, sizeof(T), kdojo_line); KDOJO_CAS_BODY(T) } \
    KDOJO_UNCHECKED T atomicCAS_block(T* p, T cmp, T v, int kdojo_line = __builtin_LINE()) { \
        return atomicCAS(p, cmp, v, kdojo_line); }
KDOJO_CAS(int)
KDOJO_CAS(unsigned int)
KDOJO_CAS(unsigned long long)
KDOJO_CAS(unsigned short)
#undef KDOJO_CAS
#undef KDOJO_CAS_BODY
#undef KDOJO_ATOMIC_ALL
#undef KDOJO_ATOMIC

#ifdef KDOJO_CHECK
inline void __threadfence() {}
inline void __threadfence_block() {}
inline void __threadfence_system() {}
#else
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#endif
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, T v) { *p = v; }
template <class T> inline void __stcs(T* p, T v) { *p = v; }
template <class T> inline void __stwt(T* p, T v) { *p = v; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stwb(T* p, T v) { *p = v; }

// ---- integer and float intrinsics -------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0F0F0F0Fu) | ((x & 0x0F0F0F0Fu) << 4);
    x = ((x >> 8) & 0x00FF00FFu) | ((x & 0x00FF00FFu) << 8);
    return (x >> 16) | (x << 16);
}
inline int __mul24(int a, int b) { return a * b; }
inline unsigned int __umul24(unsigned int a, unsigned int b) { return a * b; }
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }
inline int __float_as_int(float f) { int x; memcpy(&x, &f, 4); return x; }
inline float __uint_as_float(unsigned int x) { float f; memcpy(&f, &x, 4); return f; }
inline unsigned int __float_as_uint(float f) { unsigned int x; memcpy(&x, &f, 4); return x; }
inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }
inline long long __double_as_longlong(double d) { long long x; memcpy(&x, &d, 8); return x; }

inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __drcp_rn(double x) { return 1.0 / x; }
inline double __dsqrt_rn(double x) { return sqrt(x); }
inline float __frsqrt_rn(float x) { return static_cast<float>(1.0 / sqrt(static_cast<double>(x))); }
inline float fdividef(float a, float b) { return a / b; }
// Directed rounding (_rz _rd _ru) of float operations: computed in double (exact
// for +, -, *), then rounded to float in the requested direction.
namespace kdojo {
inline float round_toward(double d, int dir) {  // dir: 0 zero, -1 down, +1 up
    float f = static_cast<float>(d);
    if (d != d || static_cast<double>(f) == d) return f;
    if (dir == 0 ? fabs(static_cast<double>(f)) > fabs(d) : dir < 0 ? static_cast<double>(f) > d : static_cast<double>(f) < d)
        f = nextafterf(f, dir == 0 ? 0.0f : dir < 0 ? -INFINITY : INFINITY);
    return f;
}
}  // namespace kdojo
#define KDOJO_DIRECTED(SFX, DIR) \
    inline float __fadd_##SFX(float a, float b) { return ::kdojo::round_toward(static_cast<double>(a) + b, DIR); } \
    inline float __fsub_##SFX(float a, float b) { return ::kdojo::round_toward(static_cast<double>(a) - b, DIR); } \
    inline float __fmul_##SFX(float a, float b) { return ::kdojo::round_toward(static_cast<double>(a) * b, DIR); } \
    inline float __fdiv_##SFX(float a, float b) { return ::kdojo::round_toward(static_cast<double>(a) / b, DIR); } \
    inline float __frcp_##SFX(float x) { return ::kdojo::round_toward(1.0 / x, DIR); } \
    inline float __fsqrt_##SFX(float x) { return ::kdojo::round_toward(sqrt(static_cast<double>(x)), DIR); } \
    inline float __fmaf_##SFX(float a, float b, float c) { return ::kdojo::round_toward(fma(static_cast<double>(a), b, c), DIR); }
KDOJO_DIRECTED(rz, 0)
KDOJO_DIRECTED(rd, -1)
KDOJO_DIRECTED(ru, 1)
#undef KDOJO_DIRECTED
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
inline float exp10f(float x) { return powf(10.0f, x); }
inline float normcdff(float x) { return 0.5f * erfcf(-x * 0.70710678118654752f); }
inline void sincosf(float x, float* s, float* c) { *s = sinf(x); *c = cosf(x); }
inline void sincospif(float x, float* s, float* c) {
    *s = sinf(3.14159265358979323846f * x);
    *c = cosf(3.14159265358979323846f * x);
}
// erf's inverse: Newton's method on erf in double from a rough start (|x| < 1), as accurate as float.
inline float erfinvf(float x) {
    if (!(x > -1.0f && x < 1.0f)) return x == 1.0f ? INFINITY : x == -1.0f ? -INFINITY : NAN;
    double y = static_cast<double>(x), w = -log((1.0 - y) * (1.0 + y));
    double z = y * (w < 5.0 ? 0.886226925 + 0.2 * w : sqrt(w) * 0.8);
    for (int i = 0; i < 60; ++i) {
        double step = (erf(z) - y) / (1.1283791670955126 * exp(-z * z));
        z -= step;
        if (fabs(step) <= 1e-12 * fabs(z)) break;
    }
    return static_cast<float>(z);
}
inline float erfcinvf(float x) { return erfinvf(1.0f - x); }
inline int __double2hiint(double d) { long long b; memcpy(&b, &d, 8); return static_cast<int>(b >> 32); }
inline int __double2loint(double d) { long long b; memcpy(&b, &d, 8); return static_cast<int>(b & 0xffffffffLL); }
inline double __hiloint2double(int hi, int lo) {
    unsigned long long b = (static_cast<unsigned long long>(static_cast<unsigned>(hi)) << 32) | static_cast<unsigned>(lo);
    double d;
    memcpy(&d, &b, 8);
    return d;
}
inline float sinpif(float x) { return sinf(3.14159265358979323846f * x); }
inline float cospif(float x) { return cosf(3.14159265358979323846f * x); }
inline int __double2int_rn(double x) { return static_cast<int>(nearbyint(x)); }
inline int __double2int_rz(double x) { return static_cast<int>(x); }
inline long long __float2ll_rn(float x) { return static_cast<long long>(nearbyintf(x)); }
inline long long __float2ll_rz(float x) { return static_cast<long long>(x); }
inline float __ll2float_rn(long long x) { return static_cast<float>(x); }
inline float __uint2float_rn(unsigned int x) { return static_cast<float>(x); }
inline float __int2float_rz(int x) { return ::kdojo::round_toward(static_cast<double>(x), 0); }
inline float __double2float_rn(double x) { return static_cast<float>(x); }
inline double __int2double_rn(int x) { return static_cast<double>(x); }
// Integer intrinsics.
inline unsigned int __sad(int x, int y, unsigned int z) {
    return z + static_cast<unsigned int>(x > y ? static_cast<long long>(x) - y : static_cast<long long>(y) - x);
}
inline unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return z + (x > y ? x - y : y - x); }
inline unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned int>((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return shift >= 32u ? lo : static_cast<unsigned int>((v << shift) >> 32);
}
inline unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return static_cast<unsigned int>(v >> (shift & 31u));
}
inline unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
    unsigned long long v = (static_cast<unsigned long long>(hi) << 32) | lo;
    return shift >= 32u ? hi : static_cast<unsigned int>(v >> shift);
}
inline unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
    unsigned long long v = (static_cast<unsigned long long>(y) << 32) | x;
    unsigned int r = 0;
    for (int n = 0; n < 4; ++n) r |= static_cast<unsigned int>((v >> (((s >> (4 * n)) & 7u) * 8)) & 0xFFu) << (8 * n);
    return r;
}
inline int __hadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y) >> 1); }
inline int __rhadd(int x, int y) { return static_cast<int>((static_cast<long long>(x) + y + 1) >> 1); }
inline unsigned int __uhadd(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(x) + y) >> 1);
}
inline unsigned int __urhadd(unsigned int x, unsigned int y) {
    return static_cast<unsigned int>((static_cast<unsigned long long>(x) + y + 1) >> 1);
}
inline int __float2int_rn(float x) { return static_cast<int>(nearbyintf(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline int __float2int_rd(float x) { return static_cast<int>(floorf(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(ceilf(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }
inline unsigned int __float2uint_rn(float x) { return static_cast<unsigned int>(nearbyintf(x)); }

inline unsigned long long __brevll(unsigned long long x) {
    return (static_cast<unsigned long long>(__brev(static_cast<unsigned int>(x))) << 32) |
           __brev(static_cast<unsigned int>(x >> 32));
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return static_cast<unsigned long long>((static_cast<unsigned __int128>(a) * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) {
    return static_cast<long long>((static_cast<__int128>(a) * b) >> 64);
}
// __dp4a: four 8-bit products (signed or unsigned bytes) summed into c.
inline int __dp4a(int a, int b, int c) {
    for (int k = 0; k < 4; ++k)
        c += static_cast<int>(static_cast<signed char>(a >> (8 * k))) * static_cast<signed char>(b >> (8 * k));
    return c;
}
inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
    for (int k = 0; k < 4; ++k) c += ((a >> (8 * k)) & 0xFFu) * ((b >> (8 * k)) & 0xFFu);
    return c;
}
inline float norm3df(float a, float b, float c) { return sqrtf(a * a + b * b + c * c); }
inline float rnorm3df(float a, float b, float c) { return 1.0f / sqrtf(a * a + b * b + c * c); }
inline float rhypotf(float a, float b) { return 1.0f / hypotf(a, b); }
inline double norm3d(double a, double b, double c) { return sqrt(a * a + b * b + c * c); }
inline double rhypot(double a, double b) { return 1.0 / hypot(a, b); }

// CUDA's device min/max are overloaded for every arithmetic pair.
template <class A, class B, class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
inline std::common_type_t<A, B> min(A a, B b) {
    using C = std::common_type_t<A, B>;
    return static_cast<C>(b) < static_cast<C>(a) ? static_cast<C>(b) : static_cast<C>(a);
}
template <class A, class B, class = std::enable_if_t<std::is_arithmetic<A>::value && std::is_arithmetic<B>::value>>
inline std::common_type_t<A, B> max(A a, B b) {
    using C = std::common_type_t<A, B>;
    return static_cast<C>(a) < static_cast<C>(b) ? static_cast<C>(b) : static_cast<C>(a);
}
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a < b ? b : a; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a < b ? b : a; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a < b ? b : a; }

inline void __nanosleep(unsigned int) {}  // a hint on a GPU; fibers switch only at collectives

#include "kdojo_half.h"
#include "kdojo_wmma.h"
#ifndef KDOJO_RUNTIME_IMPL
#include "kdojo_cg.h"
#endif
