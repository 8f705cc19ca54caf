// A forged answer announcing 200,000 empty diagnostics (20 bytes each, within the
// size bound of an answer): the count is the program's to write, and every one
// was a Python object in the judge before its answer was checked.
extern "C" long write(int fd, const void* p, unsigned long n);
extern "C" void* malloc(unsigned long n);
extern "C" void _exit(int);
static void put32(char*& p, unsigned v) { for (int i = 0; i < 4; ++i) *p++ = (char)(v >> (8 * i)); }
static void put64(char*& p, unsigned long v) { for (int i = 0; i < 8; ++i) *p++ = (char)(v >> (8 * i)); }
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    const unsigned count = 200000;
    char* buf = (char*)malloc(64 + 20ul * count);
    char* p = buf + 12;
    put32(p, 0); put32(p, 0); put32(p, 0); put32(p, 0); put64(p, 0);  // no fault
    put32(p, count);
    for (unsigned i = 0; i < count; ++i) { put32(p, 0); put32(p, 0); put64(p, 0); put32(p, 0); }
    put32(p, 0); put32(p, 0);  // no output, no buffers
    char* h = buf; put32(h, 0x5352444Bu); put64(h, (unsigned long)(p - buf - 12));
    for (char* q = buf; q < p;) { long n = write(1, q, p - q); if (n <= 0) break; q += n; }
    for (;;) { }
}
