// uname() from a kernel and from a constructor that runs before the runtime's
// own (priority 0), both with the runtime's own (in-program) filter never
// installed (syscall() replaced). A new UTS namespace hides the host's name,
// not its kernel release and build string: the outer filter refuses uname
// (EPERM) for all code in the sandbox, so nothing of the host is told.
extern "C" long syscall(long n, ...) { return 0; }
struct utsname_ { char s[6][65]; };
extern "C" int uname(utsname_*);
extern "C" int snprintf(char*, unsigned long, const char*, ...);
static char kd_early_text[400] = "early: not run";
__attribute__((constructor(0))) static void kd_early() {
    utsname_ u;
    int ret = uname(&u);
    if (ret == 0) snprintf(kd_early_text, sizeof kd_early_text, "early: release=%s version=%s", u.s[2], u.s[3]);
    else snprintf(kd_early_text, sizeof kd_early_text, "early: ret=%d", ret);
}
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    utsname_ u;
    int ret = uname(&u);
    if (ret == 0) printf("node=%s release=%s version=%s\n", u.s[1], u.s[2], u.s[3]);
    else printf("ret=%d\n", ret);
    printf("%s\n", kd_early_text);
}
