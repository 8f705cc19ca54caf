// Kernel Dojo: <cub/cub.cuh> for NVRTC. CUB's umbrella header also pulls in
// the device-wide algorithms (host code, which NVRTC refuses); a kernel can
// only use the block- and warp-level primitives, which are these.
#pragma once
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_store.cuh>
#include <cub/block/block_exchange.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_discontinuity.cuh>
#include <cub/block/block_histogram.cuh>
#include <cub/block/block_adjacent_difference.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cub/warp/warp_scan.cuh>
#include <cub/warp/warp_load.cuh>
#include <cub/warp/warp_store.cuh>
#include <cub/warp/warp_exchange.cuh>
#include <cub/thread/thread_operators.cuh>
#include <cub/thread/thread_reduce.cuh>
#include <cub/util_ptx.cuh>
