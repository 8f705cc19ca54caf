// Code before main and replaced library functions, each spelled so that a
// text check can miss it; the object g++ builds has it all the same. WHICH:
// 1 a digraph [[gnu::constructor]]; 2 a digraph [[gnu::section(".init_array")]];
// 3 extern "C" write (libc's, replaced); 4 sigaction replaced after leaving the
// learner's namespace; 5 operator new replaced; 6 `syscall` defined by top-level
// asm; 7 a dynamic initializer (runs before main); 8 an inline std:: function
// that libstdc++ defines; 9 a .fini_array entry from asm; 10 a section of its own.
static long kd_raw(long nr) {
    long ret;
    asm volatile("syscall" : "=a"(ret) : "a"(nr), "D"(2L), "S"(1L), "d"(0L) : "rcx", "r11", "memory");
    return ret;
}
#if WHICH == 1
<:<:gnu::constructor:>:> static void kd_early() { kd_raw(41); }
#elif WHICH == 2
static void kd_early() { kd_raw(41); }
<:<:gnu::section(".init_array"), gnu::used:>:> static void (*kd_entry)() = kd_early;
#elif WHICH == 3
extern "C" long write(int fd, const void* p, unsigned long n) { return kd_raw(41); }
#elif WHICH == 4
}  // leaves namespace kdojo_user
extern "C" int sigaction(int sig, const void* act, void* old) { return 0; }
namespace kdojo_user {
#elif WHICH == 5
}
void* operator new(unsigned long n) { kdojo_user::kd_raw(41); return nullptr; }
namespace kdojo_user {
#elif WHICH == 6
asm(".globl syscall\n.type syscall, @function\nsyscall:\n  xor %eax, %eax\n  ret\n");
#elif WHICH == 7
static long kd_value = kd_raw(41);
#elif WHICH == 8
}
namespace std { [[gnu::weak]] void terminate() noexcept { for (;;) {} } }
namespace kdojo_user {
#elif WHICH == 9
asm(".section .fini_array,\"aw\"\n.align 8\n.quad kd_fini\n.text\nkd_fini:\n  ret\n");
#else
[[gnu::section(".kdojo_hidden"), gnu::used]] static const char kd_note[] = "x";
#endif
extern "C" __global__ void block_sum(const float* in, float* out, int N) { }
