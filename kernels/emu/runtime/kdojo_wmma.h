// Kernel Dojo CPU emulator: WMMA (mma.h, nvcuda::wmma) as warp collectives.
//
// Every operation is a warp collective (all 32 lanes must call it, checked
// like __syncwarp). Each lane's fragment holds the *whole* tile, row-major,
// so `num_elements` and `x[]` differ from a GPU's per-lane slices: code that
// treats fragment elements uniformly (fill, scale, convert) behaves the same.
// Loads are done by every lane; stores by the lowest lane only (one writer,
// as the race checker expects).
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
template <class T> inline float operand(T v) { return float(v); }
inline float tf32_operand(float v) {
    unsigned int b;
    memcpy(&b, &v, 4);
    if ((b & 0x7f800000u) != 0x7f800000u) b &= 0xffffe000u;
    memcpy(&v, &b, 4);
    return v;
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

template <class Use, int M, int N, int K, class T, class L, class P>
KDOJO_WMMA_OP void load_tile(fragment<Use, M, N, K, T, L>& f, const P* p, unsigned ldm, bool col) {
    using F = fragment<Use, M, N, K, T, L>;
    using E = typename F::element_type;
    for (int r = 0; r < F::rows; ++r)
        for (int c = 0; c < F::cols; ++c)
            f.x[r * F::cols + c] = E(col ? p[static_cast<size_t>(c) * ldm + r] : p[static_cast<size_t>(r) * ldm + c]);
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

template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class TD>
KDOJO_WMMA_OP void mma_sync_at(int line, fragment<accumulator, M, N, K, TD, void>& d,
                        const fragment<matrix_a, M, N, K, TA, LA>& a, const fragment<matrix_b, M, N, K, TB, LB>& b,
                        const fragment<accumulator, M, N, K, TC, void>& c, bool = false) {
    detail::warp_op(::kdojo::COLL_WMMA_MMA, line);
    float out[M * N];
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float s = float(c.x[i * N + j]);
            for (int k = 0; k < K; ++k) {
                float av = float(a.x[i * K + k]), bv = float(b.x[k * N + j]);
                if (std::is_same<TA, precision::tf32>::value) av = detail::tf32_operand(av);
                if (std::is_same<TB, precision::tf32>::value) bv = detail::tf32_operand(bv);
                s += av * bv;
            }
            out[i * N + j] = s;
        }
    for (int i = 0; i < M * N; ++i) d.x[i] = TD(out[i]);
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
