# Row softmax in Triton, one program per row.
# Rows of up to 16,384 columns are loaded once into registers (BLOCK >= cols): the
# max, the sum and the write all reuse them. Longer rows take two sweeps of BLOCK
# columns: an online max and sum (the sum rescaled whenever the max grows), then
# the write, which reads the row again (from L2, where the first sweep left it).
import triton
import triton.language as tl


# FILL-IN: helper functions, if you want them


@triton.jit
def softmax(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr, ONE_SWEEP: tl.constexpr):
    # BEGIN FILL-IN
    row = tl.program_id(0).to(tl.int64)
    # TODO: load the row (one BLOCK when ONE_SWEEP, else a loop over blocks of BLOCK
    #       columns), subtract the row max inside exp, divide by the sum of the
    #       exponentials and store. Masked lanes must not change the max or the sum.
    # This placeholder copies the row's first element.
    x = tl.load(x_ptr + row * cols)
    tl.store(y_ptr + row * cols, x)
    # END FILL-IN

def launch_softmax(rows, cols):
    if cols <= 16384:
        # at least 1024 columns a block: short rows share one binary, masked lanes cost no traffic
        block = max(1024, triton.next_power_of_2(cols))
        warps = 4 if block <= 1024 else 8 if block <= 4096 else 16
        return {"grid": (rows,), "BLOCK": block, "ONE_SWEEP": True, "num_warps": warps}
    return {"grid": (rows,), "BLOCK": 4096, "ONE_SWEEP": False, "num_warps": 16}
