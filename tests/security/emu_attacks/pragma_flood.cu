// A few KB of source that the preprocessor turns into a million lines: every
// _Pragma of a macro's expansion is a line of its own. g++ compiles it in a
// couple of seconds; the judge's own checks of the preprocessed file (Python,
// about 1 s per MB) took a minute over it, in the job process, with no budget.
#define P _Pragma("once")
#define P4 P P P P
#define P16 P4 P4 P4 P4
#define P256 P16 P16 P16 P16
#define P4K P256 P256 P256 P256 P256 P256 P256 P256 P256 P256 P256 P256 P256 P256 P256 P256
#define P64K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K P4K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
P64K
extern "C" __global__ void block_sum(const float* in, float* out, int N) { }
