// Bug: the loop checks the start of each grid-sized chunk, not the element
// itself, so the last chunk writes past the end whenever n is not a multiple
// of the grid size.
extern "C" __global__ void saxpy(int n, float a, const float* x, float* y) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (int base = 0; base < n; base += stride) {
        int i = base + tid;
        y[i] = a * x[i] + y[i];
    }
}
