// Kernel Dojo CPU emulator: __half (cuda_fp16.h) and __nv_bfloat16 (cuda_bf16.h).
// Storage is the 16-bit pattern; arithmetic is done in float and rounded back
// to nearest even, which is what the GPU's scalar half instructions give.
#pragma once

namespace kdojo {
KDOJO_NO_COVERAGE inline unsigned short float_to_half_bits(float f) {
    unsigned int x;
    memcpy(&x, &f, 4);
    unsigned int sign = (x >> 16) & 0x8000u;
    unsigned int exp = (x >> 23) & 0xFFu;
    unsigned int man = x & 0x7FFFFFu;
    if (exp == 0xFFu) return static_cast<unsigned short>(sign | 0x7C00u | (man ? 0x200u | (man >> 13) : 0u));
    int e = static_cast<int>(exp) - 127 + 15;
    if (e >= 31) return static_cast<unsigned short>(sign | 0x7C00u);
    if (e <= 0) {
        if (e < -10) return static_cast<unsigned short>(sign);
        man |= 0x800000u;
        unsigned int shift = static_cast<unsigned int>(14 - e);
        unsigned int half = man >> shift;
        unsigned int rem = man & ((1u << shift) - 1u);
        unsigned int mid = 1u << (shift - 1u);
        if (rem > mid || (rem == mid && (half & 1u))) ++half;
        return static_cast<unsigned short>(sign | half);
    }
    unsigned int half = sign | (static_cast<unsigned int>(e) << 10) | (man >> 13);
    unsigned int rem = man & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;
    return static_cast<unsigned short>(half);
}
KDOJO_NO_COVERAGE inline float half_bits_to_float(unsigned short h) {
    unsigned int sign = (h & 0x8000u) << 16;
    unsigned int exp = (h >> 10) & 0x1Fu;
    unsigned int man = h & 0x3FFu;
    unsigned int x;
    if (exp == 0x1Fu) {
        x = sign | 0x7F800000u | (man << 13);
    } else if (exp == 0) {
        if (man == 0) {
            x = sign;
        } else {
            int e = -1;
            do { ++e; man <<= 1; } while ((man & 0x400u) == 0);
            x = sign | (static_cast<unsigned int>(127 - 15 - e) << 23) | ((man & 0x3FFu) << 13);
        }
    } else {
        x = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}
KDOJO_NO_COVERAGE inline unsigned short float_to_bf16_bits(float f) {
    unsigned int x;
    memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<unsigned short>((x >> 16) | 0x40u);
    x += 0x7FFFu + ((x >> 16) & 1u);
    return static_cast<unsigned short>(x >> 16);
}
KDOJO_NO_COVERAGE inline float bf16_bits_to_float(unsigned short b) {
    unsigned int x = static_cast<unsigned int>(b) << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}
}  // namespace kdojo

#define KDOJO_HALF_TYPE(T, TO, FROM)                                                           \
    struct alignas(2) T {                                                                      \
        unsigned short __x;                                                                    \
        T() = default;                                                                         \
        KDOJO_NO_COVERAGE T(float f) : __x(::kdojo::TO(f)) {} \
        KDOJO_NO_COVERAGE T(double d) : __x(::kdojo::TO(static_cast<float>(d))) {} \
        KDOJO_NO_COVERAGE T(int i) : __x(::kdojo::TO(static_cast<float>(i))) {} \
        KDOJO_NO_COVERAGE T(unsigned i) : __x(::kdojo::TO(static_cast<float>(i))) {} \
        KDOJO_NO_COVERAGE T(short i) : __x(::kdojo::TO(static_cast<float>(i))) {} \
        KDOJO_NO_COVERAGE T(unsigned short i) : __x(::kdojo::TO(static_cast<float>(i))) {} \
        KDOJO_NO_COVERAGE T(long long i) : __x(::kdojo::TO(static_cast<float>(i))) {} \
        KDOJO_NO_COVERAGE T(unsigned long long i) : __x(::kdojo::TO(static_cast<float>(i))) {} \
        KDOJO_NO_COVERAGE operator float() const { return ::kdojo::FROM(__x); } \
        T& operator+=(T o) { *this = T(float(*this) + float(o)); return *this; }               \
        T& operator-=(T o) { *this = T(float(*this) - float(o)); return *this; }               \
        T& operator*=(T o) { *this = T(float(*this) * float(o)); return *this; }               \
        T& operator/=(T o) { *this = T(float(*this) / float(o)); return *this; }               \
    };                                                                                         \
    inline T operator+(T a, T b) { return T(float(a) + float(b)); }                            \
    inline T operator-(T a, T b) { return T(float(a) - float(b)); }                            \
    inline T operator*(T a, T b) { return T(float(a) * float(b)); }                            \
    inline T operator/(T a, T b) { return T(float(a) / float(b)); }                           \
    inline T operator-(T a) { T r; r.__x = static_cast<unsigned short>(a.__x ^ 0x8000u); return r; } \
    inline bool operator<(T a, T b) { return float(a) < float(b); }                            \
    inline bool operator>(T a, T b) { return float(a) > float(b); }                            \
    inline bool operator<=(T a, T b) { return float(a) <= float(b); }                          \
    inline bool operator>=(T a, T b) { return float(a) >= float(b); }                          \
    inline bool operator==(T a, T b) { return float(a) == float(b); }                          \
    inline bool operator!=(T a, T b) { return float(a) != float(b); }

KDOJO_HALF_TYPE(__half, float_to_half_bits, half_bits_to_float)
KDOJO_HALF_TYPE(__nv_bfloat16, float_to_bf16_bits, bf16_bits_to_float)
#undef KDOJO_HALF_TYPE

typedef __half half;
typedef __nv_bfloat16 nv_bfloat16;
struct alignas(4) __half2 { __half x, y; };
struct alignas(4) __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __half2 half2;
typedef __nv_bfloat162 nv_bfloat162;

inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline float __half2float(__half h) { return float(h); }
inline __half __int2half_rn(int i) { return __half(static_cast<float>(i)); }
inline __half __hadd(__half a, __half b) { return a + b; }
inline __half __hsub(__half a, __half b) { return a - b; }
inline __half __hmul(__half a, __half b) { return a * b; }
inline __half __hdiv(__half a, __half b) { return a / b; }
inline __half __hneg(__half a) { return -a; }
inline __half __hfma(__half a, __half b, __half c) { return __half(fmaf(float(a), float(b), float(c))); }
inline __half __hmax(__half a, __half b) { return a < b ? b : a; }
inline __half __hmin(__half a, __half b) { return b < a ? b : a; }
inline bool __hlt(__half a, __half b) { return a < b; }
inline bool __hgt(__half a, __half b) { return a > b; }
inline bool __heq(__half a, __half b) { return a == b; }
inline __half hexp(__half a) { return __half(expf(float(a))); }
inline __half hsqrt(__half a) { return __half(sqrtf(float(a))); }
inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
inline __half2 __float2half2_rn(float a) { return __half2{__half(a), __half(a)}; }
inline float __low2float(__half2 h) { return float(h.x); }
inline float __high2float(__half2 h) { return float(h.y); }
inline float2 __half22float2(__half2 h) { return float2{float(h.x), float(h.y)}; }
inline __half2 __hadd2(__half2 a, __half2 b) { return __half2{a.x + b.x, a.y + b.y}; }
inline __half2 __hmul2(__half2 a, __half2 b) { return __half2{a.x * b.x, a.y * b.y}; }

inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
inline float __bfloat162float(__nv_bfloat16 b) { return float(b); }
inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return a + b; }
inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }
inline __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return a - b; }
inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
    return __nv_bfloat16(fmaf(float(a), float(b), float(c)));
}
inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return a < b ? b : a; }
inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return b < a ? b : a; }

// More of cuda_fp16.h / cuda_bf16.h: absolute values, pairs, atomics.
inline __half __habs(__half a) { return a < __half(0.0f) ? -a : a; }
inline __nv_bfloat16 __habs(__nv_bfloat16 a) { return a < __nv_bfloat16(0.0f) ? -a : a; }
inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
inline __half2 __half2half2(__half a) { return __half2{a, a}; }
inline __half __low2half(__half2 h) { return h.x; }
inline __half __high2half(__half2 h) { return h.y; }
inline __half2 __float22half2_rn(float2 f) { return __half2{__half(f.x), __half(f.y)}; }
inline __half2 __hsub2(__half2 a, __half2 b) { return __half2{a.x - b.x, a.y - b.y}; }
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }
inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(b)}; }
inline __nv_bfloat162 __float2bfloat162_rn(float a) { return __nv_bfloat162{__nv_bfloat16(a), __nv_bfloat16(a)}; }
inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162{a, b}; }
inline float __low2float(__nv_bfloat162 h) { return float(h.x); }
inline float __high2float(__nv_bfloat162 h) { return float(h.y); }
inline float2 __bfloat1622float2(__nv_bfloat162 h) { return float2{float(h.x), float(h.y)}; }
KDOJO_UNCHECKED __half atomicAdd(__half* p, __half v, int kdojo_line = __builtin_LINE()) {
    ::kdojo::note_atomic(p, sizeof(__half), kdojo_line);
    return ::kdojo::atomic_rmw(p, [v](__half old) -> __half { return old + v; });
}
KDOJO_UNCHECKED __half2 atomicAdd(__half2* p, __half2 v, int kdojo_line = __builtin_LINE()) {
    ::kdojo::note_atomic(p, sizeof(__half2), kdojo_line);
    return ::kdojo::atomic_rmw(p, [v](__half2 old) { return __half2{old.x + v.x, old.y + v.y}; });
}
KDOJO_UNCHECKED __nv_bfloat16 atomicAdd(__nv_bfloat16* p, __nv_bfloat16 v, int kdojo_line = __builtin_LINE()) {
    ::kdojo::note_atomic(p, sizeof(__nv_bfloat16), kdojo_line);
    return ::kdojo::atomic_rmw(p, [v](__nv_bfloat16 old) -> __nv_bfloat16 { return old + v; });
}

// The pair types' operators and the rest of the everyday cuda_fp16.h / cuda_bf16.h
// surface (#12): lane-wise, each lane rounded as its scalar operation is.
#define KDOJO_PAIR_OPS(P, S)                                                                   \
    inline P operator+(P a, P b) { return P{a.x + b.x, a.y + b.y}; }                           \
    inline P operator-(P a, P b) { return P{a.x - b.x, a.y - b.y}; }                           \
    inline P operator*(P a, P b) { return P{a.x * b.x, a.y * b.y}; }                           \
    inline P operator/(P a, P b) { return P{a.x / b.x, a.y / b.y}; }                           \
    inline P operator-(P a) { return P{-a.x, -a.y}; }                                          \
    inline P& operator+=(P& a, P b) { return a = a + b; }                                      \
    inline P& operator-=(P& a, P b) { return a = a - b; }                                      \
    inline P& operator*=(P& a, P b) { return a = a * b; }                                      \
    inline P& operator/=(P& a, P b) { return a = a / b; }                                      \
    inline bool operator==(P a, P b) { return a.x == b.x && a.y == b.y; }                      \
    inline bool operator!=(P a, P b) { return a.x != b.x && a.y != b.y; }                      \
    inline P __hneg2(P a) { return -a; }                                                       \
    inline P __h2div(P a, P b) { return a / b; }                                               \
    inline P __habs2(P a) { return P{__habs(a.x), __habs(a.y)}; }                              \
    inline P __hmax2(P a, P b) { return P{__hmax(a.x, b.x), __hmax(a.y, b.y)}; }               \
    inline P __hmin2(P a, P b) { return P{__hmin(a.x, b.x), __hmin(a.y, b.y)}; }               \
    inline P h2exp(P a) { return P{S(expf(float(a.x))), S(expf(float(a.y)))}; }                \
    inline P h2sqrt(P a) { return P{S(sqrtf(float(a.x))), S(sqrtf(float(a.y)))}; }             \
    inline P h2rsqrt(P a) { return P{S(1.0f / sqrtf(float(a.x))), S(1.0f / sqrtf(float(a.y)))}; } \
    inline P __lowhigh2highlow(P a) { return P{a.y, a.x}; }                                    \
    inline S hrsqrt(S a) { return S(1.0f / sqrtf(float(a))); }                                 \
    inline S hrcp(S a) { return S(1.0f / float(a)); }                                          \
    inline S hlog(S a) { return S(logf(float(a))); }                                           \
    inline S hexp2(S a) { return S(exp2f(float(a))); }                                         \
    inline S hlog2(S a) { return S(log2f(float(a))); }                                         \
    inline S hfloor(S a) { return S(floorf(float(a))); }                                       \
    inline S hceil(S a) { return S(ceilf(float(a))); }                                         \
    inline bool __hge(S a, S b) { return a >= b; }                                             \
    inline bool __hle(S a, S b) { return a <= b; }                                             \
    inline bool __hne(S a, S b) { return a != b; }                                             \
    inline bool __hisnan(S a) { return float(a) != float(a); }                                 \
    inline int __hisinf(S a) { float f = float(a); return f == INFINITY ? 1 : f == -INFINITY ? -1 : 0; }
KDOJO_PAIR_OPS(__half2, __half)
KDOJO_PAIR_OPS(__nv_bfloat162, __nv_bfloat16)
#undef KDOJO_PAIR_OPS

inline __half2 make_half2(__half a, __half b) { return __half2{a, b}; }
inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2{a.x, b.x}; }
inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2{a.y, b.y}; }
inline __half2 __low2half2(__half2 h) { return __half2{h.x, h.x}; }
inline __half2 __high2half2(__half2 h) { return __half2{h.y, h.y}; }
inline __half2 __hmul2_sat(__half2 a, __half2 b) {
    auto sat = [](__half v) { return __half(fminf(fmaxf(float(v), 0.0f), 1.0f)); };
    return __half2{sat(a.x * b.x), sat(a.y * b.y)};
}
inline __half hexp10(__half a) { return __half(exp10f(float(a))); }
inline __half __double2half(double d) { return __half(static_cast<float>(d)); }
inline int __half2int_rn(__half h) { return static_cast<int>(rintf(float(h))); }
inline int __half2int_rz(__half h) { return static_cast<int>(float(h)); }
inline unsigned __half2uint_rn(__half h) { return static_cast<unsigned>(rintf(float(h))); }
inline __half __uint2half_rn(unsigned i) { return __half(static_cast<float>(i)); }
inline __half __short2half_rn(short i) { return __half(static_cast<float>(i)); }
inline short __half_as_short(__half h) { return static_cast<short>(h.__x); }
inline unsigned short __half_as_ushort(__half h) { return h.__x; }
inline __half __short_as_half(short i) { __half h; h.__x = static_cast<unsigned short>(i); return h; }
inline __half __ushort_as_half(unsigned short i) { __half h; h.__x = i; return h; }

inline __nv_bfloat162 make_bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162{a, b}; }
inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return __nv_bfloat162{a, a}; }
inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __nv_bfloat162{__nv_bfloat16(f.x), __nv_bfloat16(f.y)}; }
inline __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162{a.x, b.x}; }
inline __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162{a.y, b.y}; }
inline __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
inline __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return a + b; }
inline __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) { return a - b; }
inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return a * b; }
inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
    return __nv_bfloat162{__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)};
}
inline __nv_bfloat16 __hneg(__nv_bfloat16 a) { return -a; }
inline __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return a / b; }
inline bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return a < b; }
inline bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return a > b; }
inline bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return a == b; }
inline __nv_bfloat16 hexp(__nv_bfloat16 a) { return __nv_bfloat16(expf(float(a))); }
inline __nv_bfloat16 hsqrt(__nv_bfloat16 a) { return __nv_bfloat16(sqrtf(float(a))); }
inline __nv_bfloat16 __double2bfloat16(double d) { return __nv_bfloat16(static_cast<float>(d)); }
inline __nv_bfloat16 __int2bfloat16_rn(int i) { return __nv_bfloat16(static_cast<float>(i)); }
inline int __bfloat162int_rn(__nv_bfloat16 b) { return static_cast<int>(rintf(float(b))); }
inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
inline short __bfloat16_as_short(__nv_bfloat16 b) { return static_cast<short>(b.__x); }
inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short i) { __nv_bfloat16 b; b.__x = i; return b; }
inline __nv_bfloat16 __short_as_bfloat16(short i) { __nv_bfloat16 b; b.__x = static_cast<unsigned short>(i); return b; }
