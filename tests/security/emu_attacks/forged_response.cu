// A well-formed answer header naming a fault "internal" (and, in the second
// variant, a body length of 2^60): neither may become internal_error.
extern "C" long write(int fd, const void* p, unsigned long n);
extern "C" void _exit(int);
static void put32(char*& p, unsigned v) { for (int i = 0; i < 4; ++i) *p++ = (char)(v >> (8 * i)); }
static void put64(char*& p, unsigned long v) { for (int i = 0; i < 8; ++i) *p++ = (char)(v >> (8 * i)); }
static void str(char*& p, const char* s) { unsigned n = 0; while (s[n]) ++n; put32(p, n); for (unsigned i = 0; i < n; ++i) *p++ = s[i]; }
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    char buf[256], *p = buf + 12;
    put32(p, 1); str(p, "internal"); str(p, "forged"); put32(p, 0); put64(p, 0);
    put32(p, 0); str(p, ""); put32(p, 0);
    char* h = buf; put32(h, 0x5352444Bu); put64(h, HUGE ? (1ul << 60) : (unsigned long)(p - buf - 12));
    write(1, buf, p - buf);
    _exit(0);
}
