// Kernel Dojo CPU emulator: WMMA (mma.h, nvcuda::wmma) as warp collectives.
//
// Every operation is a warp collective (all 32 lanes must call it, checked
// like __syncwarp). Each lane's fragment holds the *whole* tile, row-major,
// so `num_elements` and `x[]` differ from a GPU's per-lane slices: code that
// treats fragment elements uniformly (fill, scale, convert) behaves the same.
// Loads are done by every lane (only lane 0's go to the race checker); stores
// by the lowest lane only (one writer, as the race checker expects); a product
// is computed once for lanes holding the same tiles (detail::mma_memo).
#pragma once

// KDOJO_NO_COVERAGE (kdojo_device.h): a fragment op's emulation, every lane walking the whole
// tile, is no code of the learner's warp: the profiler's basic blocks (#16) leave it out.
#define KDOJO_WMMA_OP KDOJO_NO_COVERAGE inline

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
// TF32 inputs (m16n16k8): fragments of floats whose mma uses only 10 mantissa bits.
namespace precision { struct tf32 {}; }
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

namespace detail {
template <class Use, int M, int N, int K> struct dims;
template <int M, int N, int K> struct dims<matrix_a, M, N, K> { static constexpr int rows = M, cols = K; };
template <int M, int N, int K> struct dims<matrix_b, M, N, K> { static constexpr int rows = K, cols = N; };
template <int M, int N, int K> struct dims<accumulator, M, N, K> { static constexpr int rows = M, cols = N; };
inline void warp_op(int kind, int line) { ::kdojo::collective(kind, line, 0xffffffffu, 0, 0, 32); }
inline bool first_lane() { return (::kdojo::g_cur->linear % 32) == 0; }
template <class T> struct storage { using type = T; };
template <> struct storage<precision::tf32> { using type = float; };
// What the tensor core multiplies: a TF32 element keeps 10 mantissa bits (the rest dropped).
inline float tf32_operand(float v) {
    unsigned int b;
    memcpy(&b, &v, 4);
    if ((b & 0x7f800000u) != 0x7f800000u) b &= 0xffffe000u;
    memcpy(&v, &b, 4);
    return v;
}
// A fragment's n elements as the tensor core multiplies them, in floats, each converted once (half
// to float is a software conversion here). Lane-local data only, as mma_sync_at (no_sanitize_thread).
template <class T, class E>
KDOJO_WMMA_OP __attribute__((no_sanitize_thread)) void operands(const E* x, int n, float* out) {
    for (int i = 0; i < n; ++i) out[i] = std::is_same<T, precision::tf32>::value ? tf32_operand(float(x[i])) : float(x[i]);
}
// The profiler (#16) counts a fragment load or store as the warp's few wide accesses of the tile,
// as a GPU makes them, not as 32 lanes each reading every element (kdojo_profile.cpp).
struct FragmentOp {
    explicit FragmentOp(int pattern = ::kdojo::FRAG_PLAIN) { ::kdojo::profile_fragment(true, pattern); }
    ~FragmentOp() { ::kdojo::profile_fragment(false); }
};
// The instructions a GPU makes of a fragment op, where the profiler knows them: an m16n16k16 A or
// B tile of 16-bit elements is one ldmatrix.x4; its fp32 accumulator, row-major, four 64-bit ones.
template <class Use, int M, int N, int K, class T>
constexpr int input_pattern() {
    return M == 16 && N == 16 && K == 16 && sizeof(typename storage<T>::type) == 2 &&
                   !std::is_same<Use, accumulator>::value
               ? ::kdojo::FRAG_LDSM
               : ::kdojo::FRAG_PLAIN;
}
template <int M, int N, int K, class T>
inline int accumulator_pattern(layout_t layout) {
    return M == 16 && N == 16 && K == 16 && sizeof(T) == 4 && layout == mem_row_major ? ::kdojo::FRAG_ACC64
                                                                                      : ::kdojo::FRAG_PLAIN;
}
}  // namespace detail

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
    static constexpr int rows = detail::dims<Use, M, N, K>::rows;
    static constexpr int cols = detail::dims<Use, M, N, K>::cols;
    static constexpr int num_elements = rows * cols;
    using element_type = typename detail::storage<T>::type;
    element_type x[num_elements];
};

template <class Use, int M, int N, int K, class T, class L, class V>
KDOJO_WMMA_OP void fill_fragment_at(int line, fragment<Use, M, N, K, T, L>& f, const V& v) {
    detail::warp_op(::kdojo::COLL_WMMA_FILL, line);
    using E = typename fragment<Use, M, N, K, T, L>::element_type;
    for (int i = 0; i < f.num_elements; ++i) f.x[i] = E(v);
}

// Every lane reads the whole tile (its fragment holds all of it). Only lane 0's reads are the
// checked ones: they are the warp's reads of the tile (the same addresses, in the same barrier
// interval), so a race with another warp, an uninitialised element or a read past an array is
// found from them, and the profiler keeps lane 0's accesses only (kdojo_profile.cpp). The other
// 31 lanes' copies, each element sent to the race checker, were most of a checked WMMA kernel's
// time. (One function per form: GCC does not inline a no_sanitize function into a checked one.)
#define KDOJO_WMMA_LOAD_TILE                                                                              \
    using F = fragment<Use, M, N, K, T, L>;                                                              \
    using E = typename F::element_type;                                                                  \
    for (int r = 0; r < F::rows; ++r)                                                                    \
        for (int c = 0; c < F::cols; ++c)                                                                \
            f.x[r * F::cols + c] = E(col ? p[static_cast<size_t>(c) * ldm + r] : p[static_cast<size_t>(r) * ldm + c]);
template <class Use, int M, int N, int K, class T, class L, class P>
KDOJO_WMMA_OP void load_tile_checked(fragment<Use, M, N, K, T, L>& f, const P* p, unsigned ldm, bool col) {
    KDOJO_WMMA_LOAD_TILE
}
template <class Use, int M, int N, int K, class T, class L, class P>
KDOJO_WMMA_OP __attribute__((no_sanitize_thread)) void load_tile_unchecked(fragment<Use, M, N, K, T, L>& f, const P* p,
                                                                          unsigned ldm, bool col) {
    KDOJO_WMMA_LOAD_TILE
}
#undef KDOJO_WMMA_LOAD_TILE
template <class Use, int M, int N, int K, class T, class L, class P>
KDOJO_WMMA_OP void load_tile(fragment<Use, M, N, K, T, L>& f, const P* p, unsigned ldm, bool col) {
    // the lane test written out: detail::first_lane() is a basic block the profiler counts (#16)
    if (::kdojo::g_cur->linear % 32 == 0)
        load_tile_checked(f, p, ldm, col);
    else
        load_tile_unchecked(f, p, ldm, col);
}

template <class Use, int M, int N, int K, class T, class P>
KDOJO_WMMA_OP void load_matrix_sync_at(int line, fragment<Use, M, N, K, T, row_major>& f, const P* p, unsigned ldm) {
    detail::warp_op(::kdojo::COLL_WMMA_LOAD, line);
    detail::FragmentOp counted(detail::input_pattern<Use, M, N, K, T>());
    load_tile(f, p, ldm, false);
}
template <class Use, int M, int N, int K, class T, class P>
KDOJO_WMMA_OP void load_matrix_sync_at(int line, fragment<Use, M, N, K, T, col_major>& f, const P* p, unsigned ldm) {
    detail::warp_op(::kdojo::COLL_WMMA_LOAD, line);
    detail::FragmentOp counted(detail::input_pattern<Use, M, N, K, T>());
    load_tile(f, p, ldm, true);
}
template <int M, int N, int K, class T, class P>
KDOJO_WMMA_OP void load_matrix_sync_at(int line, fragment<accumulator, M, N, K, T, void>& f, const P* p, unsigned ldm,
                                layout_t layout) {
    detail::warp_op(::kdojo::COLL_WMMA_LOAD, line);
    detail::FragmentOp counted(detail::accumulator_pattern<M, N, K, T>(layout));
    load_tile(f, p, ldm, layout == mem_col_major);
}

template <int M, int N, int K, class T, class P>
KDOJO_WMMA_OP void store_matrix_sync_at(int line, P* p, const fragment<accumulator, M, N, K, T, void>& f, unsigned ldm,
                                 layout_t layout) {
    detail::warp_op(::kdojo::COLL_WMMA_STORE, line);
    if (!detail::first_lane()) return;
    detail::FragmentOp counted(detail::accumulator_pattern<M, N, K, T>(layout));
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            size_t at = layout == mem_col_major ? static_cast<size_t>(c) * ldm + r : static_cast<size_t>(r) * ldm + c;
            p[at] = P(f.x[r * N + c]);
        }
}

namespace detail {
// The last product this (OS) thread computed, per fragment types: a warp's 32 lanes hold the same
// tiles (each loads the whole tile) and multiply them one after another, so lanes 1-31 find lane
// 0's inputs here, byte for byte, and take its result instead of multiplying again. Compared by
// content, so a lane whose fragments differ (or another warp's product) is computed as before.
template <class A, class B, class C, class D>
struct MmaMemo {
    bool valid;
    A a;
    B b;
    C c;
    D d;
};
template <class A, class B, class C, class D>
inline KDOJO_TLS MmaMemo<A, B, C, D> mma_memo;
}  // namespace detail

// The product touches only the lanes' own fragments (never shared or global memory), so the
// check program does not send its accesses to the race checker (no_sanitize_thread). Each operand
// element is converted to float once, not once per use (detail::operands), and the sums run
// i, k, j: each element is still c + a0*b0 + a1*b1 + ... in k order, in float, as before (bit
// for bit), and the inner loop runs along a row of B.
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class TD>
KDOJO_WMMA_OP __attribute__((no_sanitize_thread)) void mma_sync_at(
    int line, fragment<accumulator, M, N, K, TD, void>& d, const fragment<matrix_a, M, N, K, TA, LA>& a,
    const fragment<matrix_b, M, N, K, TB, LB>& b, const fragment<accumulator, M, N, K, TC, void>& c, bool = false) {
    detail::warp_op(::kdojo::COLL_WMMA_MMA, line);
    auto& memo = detail::mma_memo<fragment<matrix_a, M, N, K, TA, LA>, fragment<matrix_b, M, N, K, TB, LB>,
                                  fragment<accumulator, M, N, K, TC, void>, fragment<accumulator, M, N, K, TD, void>>;
    if (memo.valid && __builtin_memcmp(&memo.a, &a, sizeof a) == 0 && __builtin_memcmp(&memo.b, &b, sizeof b) == 0 &&
        __builtin_memcmp(&memo.c, &c, sizeof c) == 0) {
        d = memo.d;
        return;
    }
    float av[M * K], bv[K * N], out[M * N];
    detail::operands<TA>(a.x, M * K, av);
    detail::operands<TB>(b.x, K * N, bv);
    for (int i = 0; i < M * N; ++i) out[i] = float(c.x[i]);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) {
            const float x = av[i * K + k];
            for (int j = 0; j < N; ++j) out[i * N + j] += x * bv[k * N + j];
        }
    memo.a = a;  // before d is written: d may be c
    memo.b = b;
    memo.c = c;
    for (int i = 0; i < M * N; ++i) d.x[i] = TD(out[i]);
    memo.d = d;
    memo.valid = true;
}

// Rounds to TF32 (10 mantissa bits, to nearest), kept as a float.
inline float __float_to_tf32(float v) {
    unsigned int b;
    memcpy(&b, &v, 4);
    if ((b & 0x7f800000u) != 0x7f800000u) b = (b + 0x1000u) & 0xffffe000u;
    memcpy(&v, &b, 4);
    return v;
}

}  // namespace wmma
}  // namespace nvcuda

#define fill_fragment(...) fill_fragment_at(__LINE__, __VA_ARGS__)
#define load_matrix_sync(...) load_matrix_sync_at(__LINE__, __VA_ARGS__)
#define store_matrix_sync(...) store_matrix_sync_at(__LINE__, __VA_ARGS__)
#define mma_sync(...) mma_sync_at(__LINE__, __VA_ARGS__)
