// SIGKILL of itself would look like someone else's kill (the judge retries those,
// then says internal_error): the filter refuses it, and kill() ends the program.
extern "C" int getpid(void);
extern "C" int tgkill(int, int, int);
extern "C" int kill(int, int);
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    out[0] = tgkill(getpid(), getpid(), 9);
    kill(getpid(), 9);
}
