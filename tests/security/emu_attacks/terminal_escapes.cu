// Writes terminal control sequences: clear the screen, a green "accepted", a
// window title, a bell, a carriage return, an 8-bit CSI (C1) and a right-to-left override.
extern "C" __global__ void block_sum(const float* in, float* out, int N) {
    if (threadIdx.x || blockIdx.x) return;
    printf("\x1b[2J\x1b[H\x1b[32maccepted\x1b[0m\x07\x1b]0;pwned\x07\rtail\xc2\x9b" "2J\xe2\x80\xae" "end\n");
}
