// expect: accepted — threads past `size` return first; the lanes left form cg::coalesced_threads() and take the sum from its rank 0
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void basic_broadcast(float* output, const float* input, int size) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) return;
    cg::coalesced_group active = cg::coalesced_threads();
    float sum = 0.0f;
    if (active.thread_rank() == 0) {
        const int first = blockIdx.x * blockDim.x;
        for (int k = first; k < first + 4 && k < size; ++k) sum += input[k];
    }
    sum = active.shfl(sum, 0);
    output[i] = input[i] + sum;
}
