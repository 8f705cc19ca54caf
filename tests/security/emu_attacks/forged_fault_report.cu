// Writes its own segmentation fault report to stderr, then crashes: the judge
// reads the report (to name the line), so a report learner code writes must be
// read as data. REPORT picks one: a 5,000-digit number, a malformed field, a
// value out of range, an unknown key, binary junk. None may raise in the judge.
extern "C" long write(int fd, const void* p, unsigned long n);
extern "C" void* memset(void* p, int c, unsigned long n);
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    char text[6000];
    int n = 0;
    const char* head = "\nKDOJO-MEMORY-FAULT ";
    for (const char* p = head; *p; ++p) text[n++] = *p;
    const char* body =
        REPORT == 0 ? "pc=" :
        REPORT == 1 ? "pc=0x1 addr=-0x5 write=1 kernel=1" :
        REPORT == 2 ? "pc=0x1 addr=0x2 write=1 kernel=1 buffer=99999999 element=5" :
        REPORT == 3 ? "pc=0x1 addr=0x2 write=7 kernel=1 secret=1" :
                      "pc=0x1 addr=\x01\x1b[2J write=1 kernel=1";
    for (const char* p = body; *p; ++p) text[n++] = *p;
    if (REPORT == 0)
        for (int i = 0; i < 5000; ++i) text[n++] = '9';
    text[n++] = '\n';
    write(2, text, n);
    volatile int* null = 0;
    *null = 1;
}
