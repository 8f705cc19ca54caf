"""A warp in lockstep (a source with `volatile`) reconverges at a loop's back edge (#28):
the lanes that leave a branch chain early wait for the rest of their warp before the
loop's next iteration, as on a GPU."""

import numpy as np
import pytest

from tests.emu.harness import launch

# Bell & Garland's CSR-vector SpMV, warp-synchronous: 32 lanes per row, partial sums
# halved in volatile shared memory by an `if (lane < s)` chain, no __syncwarp, in a
# grid-stride loop over rows. Lanes 16-31 skip the whole chain: run on alone, they would
# zero their partial sums for the next row before lanes 0-15 read them.
CSR_VECTOR = """
extern "C" __global__ void spmv(const int* row_ptr, const int* col_idx, const float* vals, const float* x,
                                float* y, int rows) {
    __shared__ volatile float partial[64];
    const int t = threadIdx.x, lane = t & 31;
    const int warps = gridDim.x * (blockDim.x / 32);
    for (int row = blockIdx.x * (blockDim.x / 32) + t / 32; row < rows; row += warps) {
        const int begin = row_ptr[row], end = row_ptr[row + 1];
        partial[t] = 0.0f;
        for (int j = begin + lane; j < end; j += 32) partial[t] += vals[j] * x[col_idx[j]];
        if (lane < 16) partial[t] += partial[t + 16];
        if (lane < 8) partial[t] += partial[t + 8];
        if (lane < 4) partial[t] += partial[t + 4];
        if (lane < 2) partial[t] += partial[t + 2];
        if (lane < 1) partial[t] += partial[t + 1];
        if (lane == 0) y[row] = partial[t];
    }
}
"""


def csr(rows: int, cols: int, seed: int):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 100, rows)  # empty rows, rows shorter and longer than a warp
    row_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    col_idx = rng.integers(0, cols, int(row_ptr[-1])).astype(np.int32)
    vals = rng.standard_normal(int(row_ptr[-1])).astype(np.float32)
    x = rng.standard_normal(cols).astype(np.float32)
    expected = np.array([np.dot(vals[row_ptr[r]:row_ptr[r + 1]].astype(np.float64), x[col_idx[row_ptr[r]:row_ptr[r + 1]]])
                         for r in range(rows)])
    return row_ptr, col_idx, vals, x, expected


@pytest.mark.parametrize("variant", ["fast", "check"])
def test_csr_vector_spmv_warps_reconverge_between_rows(variant):
    rows = 37  # 2 blocks of 2 warps: each warp takes 9 or 10 rows, one after the other
    row_ptr, col_idx, vals, x, expected = csr(rows, 50, seed=3)
    y = np.full(rows, np.nan, dtype=np.float32)
    out = launch(CSR_VECTOR, "spmv", 2, 64, [row_ptr, col_idx, vals, x, y, rows], variant=variant)
    assert out.fault is None, out.fault_message
    np.testing.assert_allclose(out.arrays[4], expected, rtol=1e-4, atol=1e-4)
    assert not {"race", "uninitialised_read"} & out.kinds(), [d.message for d in out.diagnostics]


def test_lanes_that_skip_the_chain_still_run_alone_without_volatile():
    """The same chain on a plain pointer is no lockstep: the GPU's compiler keeps the sums in
    registers, and the checker reports the lanes' unordered accesses."""
    plain = CSR_VECTOR.replace("__shared__ volatile float", "__shared__ float")
    rows = 37
    row_ptr, col_idx, vals, x, _ = csr(rows, 50, seed=3)
    y = np.zeros(rows, dtype=np.float32)
    out = launch(plain, "spmv", 2, 64, [row_ptr, col_idx, vals, x, y, rows], variant="check")
    assert "race" in out.kinds()
