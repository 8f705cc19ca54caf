// Bad: the threads count themselves with atomicAdd, but thread 5 reads the count before the barrier.
extern "C" __global__ void k(int* out) {
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    atomicAdd(&count, 1);
    if (threadIdx.x == 5) out[0] = count;
    __syncthreads();
}
