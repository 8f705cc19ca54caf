// Exits with status 137: bubblewrap reports a child killed by signal N as 128+N,
// so without more care this reads as a SIGKILL the judge did not send (the
// machine's fault: re-run, then internal_error). It must stay the learner's.
extern "C" void _exit(int);
extern "C" __global__ void block_sum(const float* in, float* out, int N) { _exit(STATUS); }
