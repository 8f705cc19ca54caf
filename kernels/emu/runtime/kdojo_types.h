// Kernel Dojo CPU emulator: CUDA's built-in vector types (dim3, float4 …).
// Aggregates with CUDA's alignments, so `__shared__` arrays of them need no
// constructors and `reinterpret_cast<float4*>` loads behave as on the GPU.
#pragma once

struct uint3 { unsigned int x, y, z; };
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

#define KDOJO_VEC2(T, N, A) struct alignas(A) N##2 { T x, y; }; \
    inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define KDOJO_VEC3(T, N) struct N##3 { T x, y, z; }; \
    inline N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define KDOJO_VEC4(T, N, A) struct alignas(A) N##4 { T x, y, z, w; }; \
    inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define KDOJO_VEC1(T, N) struct N##1 { T x; }; inline N##1 make_##N##1(T x) { return N##1{x}; }

KDOJO_VEC1(float, float) KDOJO_VEC2(float, float, 8) KDOJO_VEC3(float, float) KDOJO_VEC4(float, float, 16)
KDOJO_VEC1(double, double) KDOJO_VEC2(double, double, 16) KDOJO_VEC3(double, double) KDOJO_VEC4(double, double, 16)
KDOJO_VEC1(int, int) KDOJO_VEC2(int, int, 8) KDOJO_VEC3(int, int) KDOJO_VEC4(int, int, 16)
KDOJO_VEC1(unsigned int, uint) KDOJO_VEC2(unsigned int, uint, 8) KDOJO_VEC4(unsigned int, uint, 16)
KDOJO_VEC1(long long, longlong) KDOJO_VEC2(long long, longlong, 16)
KDOJO_VEC1(unsigned long long, ulonglong) KDOJO_VEC2(unsigned long long, ulonglong, 16)
KDOJO_VEC2(short, short, 4) KDOJO_VEC4(short, short, 8)
KDOJO_VEC2(unsigned char, uchar, 2) KDOJO_VEC4(unsigned char, uchar, 4)
KDOJO_VEC2(char, char, 2) KDOJO_VEC4(char, char, 4)
inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return uint3{x, y, z}; }

#undef KDOJO_VEC1
#undef KDOJO_VEC2
#undef KDOJO_VEC3
#undef KDOJO_VEC4
