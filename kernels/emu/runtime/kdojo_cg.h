// Kernel Dojo CPU emulator: the cooperative groups that public kernels use
// (<cooperative_groups.h>, its reduce.h and scan.h), built on the runtime's
// own barrier and warp collectives, so every arrival is checked as
// __syncthreads() and __shfl_*_sync() are (divergence, masks, absent lanes).
//
// Each call takes the learner's line as a defaulted __builtin_LINE() argument,
// so a diagnostic names the line of `tile.shfl_down(…)`, not this header's.
// A grid-wide group has no emulated cooperative launch: grid.sync() ends the
// case with a runtime error, as a GPU does for a launch that is not cooperative.
#pragma once

namespace cooperative_groups {

namespace detail {
enum Kind { BLOCK, TILE, COALESCED };
inline unsigned linear_tid() { return ::kdojo::g_cur->linear; }
inline unsigned lane() { return ::kdojo::g_cur->lane; }
inline unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
// The lane of the group member of rank `rank` in a coalesced group's mask.
inline unsigned nth_lane(unsigned mask, unsigned rank) {
    for (unsigned i = 0; i < rank && mask; ++i) mask &= mask - 1;
    return mask ? static_cast<unsigned>(__builtin_ctz(mask)) : 32u;
}
}  // namespace detail

// A group of threads of one block: the whole block, a tile of a warp, or the
// lanes of a warp that are active together (coalesced). Concrete groups below
// convert to it, so `void f(cg::thread_group g)` works for any of them.
class thread_group {
public:
    unsigned size() const { return kind_ == detail::BLOCK ? detail::block_threads() : size_; }
    unsigned num_threads() const { return size(); }
    unsigned thread_rank() const {
        if (kind_ == detail::BLOCK) return detail::linear_tid();
        if (kind_ == detail::TILE) return detail::linear_tid() % size_;
        return static_cast<unsigned>(__builtin_popcount(mask_ & ((1u << detail::lane()) - 1u)));
    }
    void sync(int line = __builtin_LINE()) const {
        if (kind_ == detail::BLOCK) ::kdojo::syncthreads(line);
        else ::kdojo::collective(::kdojo::COLL_SYNCWARP, line, lane_mask(), 0, 0, 32);
    }

protected:
    thread_group(detail::Kind kind, unsigned size, unsigned mask) : kind_(kind), size_(size), mask_(mask) {}
    // The warp lanes of this thread's tile (or the coalesced group's mask).
    unsigned lane_mask() const {
        if (kind_ != detail::TILE) return mask_;
        if (size_ >= 32) return 0xffffffffu;
        unsigned low = (1u << size_) - 1u;
        return low << (detail::lane() & ~(size_ - 1u));
    }
    detail::Kind kind_;
    unsigned size_;
    unsigned mask_;
};

class thread_block : public thread_group {
public:
    thread_block() : thread_group(detail::BLOCK, 0, 0) {}
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    dim3 dim_threads() const { return blockDim; }
    dim3 group_dim() const { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }

// Collectives of a tile or coalesced group, on the runtime's warp collectives.
class warp_group : public thread_group {
public:
    template <class T>
    T shfl(T var, unsigned src_rank, int line = __builtin_LINE()) const {
        unsigned src = kind_ == detail::COALESCED ? detail::nth_lane(mask_, src_rank % size_)
                                                  : (detail::lane() & ~(size_ - 1u)) + (src_rank % size_);
        return ::kdojo::shfl_at(line, ::kdojo::COLL_SHFL_IDX, lane_mask(), var, static_cast<int>(src), 32);
    }
    template <class T>
    T shfl_down(T var, unsigned delta, int line = __builtin_LINE()) const {
        if (kind_ == detail::COALESCED) {
            unsigned r = thread_rank() + delta;
            unsigned src = r < size_ ? detail::nth_lane(mask_, r) : detail::lane();
            return ::kdojo::shfl_at(line, ::kdojo::COLL_SHFL_IDX, mask_, var, static_cast<int>(src), 32);
        }
        return ::kdojo::shfl_at(line, ::kdojo::COLL_SHFL_DOWN, lane_mask(), var, static_cast<int>(delta),
                                static_cast<int>(size_));
    }
    template <class T>
    T shfl_up(T var, unsigned delta, int line = __builtin_LINE()) const {
        if (kind_ == detail::COALESCED) {
            unsigned r = thread_rank();
            unsigned src = r >= delta ? detail::nth_lane(mask_, r - delta) : detail::lane();
            return ::kdojo::shfl_at(line, ::kdojo::COLL_SHFL_IDX, mask_, var, static_cast<int>(src), 32);
        }
        return ::kdojo::shfl_at(line, ::kdojo::COLL_SHFL_UP, lane_mask(), var, static_cast<int>(delta),
                                static_cast<int>(size_));
    }
    template <class T>
    T shfl_xor(T var, unsigned lane_mask_arg, int line = __builtin_LINE()) const {
        if (kind_ == detail::COALESCED) {
            unsigned r = thread_rank() ^ lane_mask_arg;
            unsigned src = r < size_ ? detail::nth_lane(mask_, r) : detail::lane();
            return ::kdojo::shfl_at(line, ::kdojo::COLL_SHFL_IDX, mask_, var, static_cast<int>(src), 32);
        }
        return ::kdojo::shfl_at(line, ::kdojo::COLL_SHFL_XOR, lane_mask(), var, static_cast<int>(lane_mask_arg),
                                static_cast<int>(size_));
    }
    int any(int pred, int line = __builtin_LINE()) const {
        return static_cast<int>(::kdojo::collective(::kdojo::COLL_ANY, line, lane_mask(), pred ? 1u : 0u, 0, 32));
    }
    int all(int pred, int line = __builtin_LINE()) const {
        return static_cast<int>(::kdojo::collective(::kdojo::COLL_ALL, line, lane_mask(), pred ? 1u : 0u, 0, 32));
    }
    // Bit i: the member of rank i voted true.
    unsigned ballot(int pred, int line = __builtin_LINE()) const {
        unsigned votes = static_cast<unsigned>(
            ::kdojo::collective(::kdojo::COLL_BALLOT, line, lane_mask(), pred ? 1u : 0u, 0, 32));
        if (kind_ == detail::TILE) return size_ >= 32 ? votes : (votes >> (detail::lane() & ~(size_ - 1u))) & ((1u << size_) - 1u);
        unsigned ranked = 0;
        for (unsigned m = mask_, r = 0; m; m &= m - 1, ++r)
            if (votes & (1u << __builtin_ctz(m))) ranked |= 1u << r;
        return ranked;
    }
    unsigned meta_group_rank() const { return kind_ == detail::TILE ? detail::linear_tid() / size_ : 0; }
    unsigned meta_group_size() const {
        return kind_ == detail::TILE ? (detail::block_threads() + size_ - 1) / size_ : 1;
    }

protected:
    warp_group(detail::Kind kind, unsigned size, unsigned mask) : thread_group(kind, size, mask) {}
};

template <unsigned N, class Parent = void>
class thread_block_tile;
template <unsigned N>
class thread_block_tile<N, void> : public warp_group {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                  "tiled_partition<N>: the emulator supports tiles of 1, 2, 4, 8, 16 or 32 threads");

public:
    thread_block_tile() : warp_group(detail::TILE, N, 0) {}
    static constexpr unsigned num_threads() { return N; }
    static constexpr unsigned size() { return N; }
    unsigned thread_rank() const { return detail::linear_tid() % N; }
};
// CUDA's tile of a known parent converts to the plain thread_block_tile<N>.
template <unsigned N, class Parent>
class thread_block_tile : public thread_block_tile<N, void> {};

template <unsigned N, class Parent>
inline thread_block_tile<N, Parent> tiled_partition(const Parent&) { return thread_block_tile<N, Parent>(); }

// tiled_partition(parent, n) with n chosen at run time: a thread_group.
class dynamic_tile : public warp_group {
public:
    explicit dynamic_tile(unsigned n) : warp_group(detail::TILE, n, 0) {
        if (n == 0 || n > 32 || (n & (n - 1)) != 0)
            ::kdojo::fail(0, "invalid tile size", "tiled_partition(group, n): the emulator supports n = 1, 2, 4, 8, 16 or 32");
    }
};
inline dynamic_tile tiled_partition(const thread_group&, unsigned n) { return dynamic_tile(n); }

class coalesced_group : public warp_group {
public:
    explicit coalesced_group(unsigned mask)
        : warp_group(detail::COALESCED, static_cast<unsigned>(__builtin_popcount(mask)), mask) {}
};
inline coalesced_group coalesced_threads(int line = __builtin_LINE()) {
    return coalesced_group(::kdojo::activemask(line));
}

class grid_group {
public:
    bool is_valid() const { return false; }  // only a cooperative launch makes one
    void sync(int line = __builtin_LINE()) const {
        ::kdojo::fail(line, "grid sync without a cooperative launch",
                      "this_grid().sync() needs a cooperative launch (cudaLaunchCooperativeKernel); "
                      "the judge launches kernels normally, so a grid-wide barrier cannot work: "
                      "split the kernel in two launches or use atomics");
    }
    unsigned long long size() const {
        return static_cast<unsigned long long>(detail::block_threads()) * gridDim.x * gridDim.y * gridDim.z;
    }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const {
        return block_rank() * detail::block_threads() + detail::linear_tid();
    }
    unsigned long long block_rank() const {
        return blockIdx.x + static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + static_cast<unsigned long long>(gridDim.y) * blockIdx.z);
    }
    unsigned long long num_blocks() const { return static_cast<unsigned long long>(gridDim.x) * gridDim.y * gridDim.z; }
};
inline grid_group this_grid() { return grid_group(); }

template <class G>
inline void sync(const G& g, int line = __builtin_LINE()) { g.sync(line); }

// ---- reduce.h / scan.h ------------------------------------------------------
template <class T = void> struct plus { T operator()(const T& a, const T& b) const { return a + b; } };
template <class T = void> struct less { T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class T = void> struct greater { T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T = void> struct bit_and { T operator()(const T& a, const T& b) const { return a & b; } };
template <class T = void> struct bit_or { T operator()(const T& a, const T& b) const { return a | b; } };
template <class T = void> struct bit_xor { T operator()(const T& a, const T& b) const { return a ^ b; } };

// Every member gets the reduction of every member's value (a butterfly over the
// group: on a tile each lane combines the same values, so all lanes agree).
template <class G, class T, class Op>
inline T reduce(const G& g, T value, Op op, int line = __builtin_LINE()) {
    const unsigned n = g.size();
    if ((n & (n - 1)) == 0) {
        for (unsigned offset = n / 2; offset > 0; offset /= 2) value = op(value, g.shfl_xor(value, offset, line));
        return value;
    }
    // A coalesced group of any size: fold ranks down onto rank 0, then share.
    for (unsigned offset = 1; offset < n; offset *= 2) {
        T other = g.shfl_down(value, offset, line);
        if (g.thread_rank() % (2 * offset) == 0 && g.thread_rank() + offset < n) value = op(value, other);
    }
    return g.shfl(value, 0, line);
}

template <class G, class T, class Op>
inline T inclusive_scan(const G& g, T value, Op op, int line = __builtin_LINE()) {
    const unsigned rank = g.thread_rank();
    for (unsigned offset = 1; offset < g.size(); offset *= 2) {
        T other = g.shfl_up(value, offset, line);
        if (rank >= offset) value = op(other, value);
    }
    return value;
}
template <class G, class T>
inline T inclusive_scan(const G& g, T value, int line = __builtin_LINE()) {
    return inclusive_scan(g, value, plus<T>(), line);
}
// Member 0 gets T() (the identity for plus; CUDA leaves it unspecified for other operators).
template <class G, class T, class Op>
inline T exclusive_scan(const G& g, T value, Op op, int line = __builtin_LINE()) {
    T inclusive = inclusive_scan(g, value, op, line);
    T before = g.shfl_up(inclusive, 1, line);
    return g.thread_rank() == 0 ? T() : before;
}
template <class G, class T>
inline T exclusive_scan(const G& g, T value, int line = __builtin_LINE()) {
    return exclusive_scan(g, value, plus<T>(), line);
}

}  // namespace cooperative_groups
