/* Which probe (h1scan.h) runs: the widest the CPU has, under the limit a
 * test may set; and the bytes the probes compare with. */
#include "httpload/h1scan.h"

#define X4(c) c, c, c, c
#define X32(c) X4(c), X4(c), X4(c), X4(c), X4(c), X4(c), X4(c), X4(c)
_Alignas(32) const uint8_t h1_want[H1_WANT_COUNT][H1_PROBE] = {
    {X32('\n')}, {X32('\r')}, {X32(':')}, {X32(' ')}, {X32('\t')},
};

enum h1_simd h1_simd_level(enum h1_simd limit)
{
#if defined(H1_HAVE_X86)
    if (limit >= H1_SIMD_AVX2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
        __builtin_cpu_supports("bmi2"))
        return H1_SIMD_AVX2;
#endif
#if defined(__SSE2__)
    if (limit >= H1_SIMD_SSE2) return H1_SIMD_SSE2;
#endif
    return H1_SIMD_BYTES;
}
