/* A probe of 32 bytes of an HTTP/1.1 header block: bit masks of where its
 * LFs, CRs, NULs, colons and whitespace (SP, HTAB) are, from one AVX2 or two
 * SSE2 compares per byte class, or from 64-bit word arithmetic. A header
 * line usually fits one probe, so its end, its first colon and the bytes it
 * may not hold come out of a few bit operations (h1parse.c). The three
 * versions give the same masks; which one runs is chosen at run time. */
#ifndef HTTPLOAD_H1SCAN_H
#define HTTPLOAD_H1SCAN_H

#include <stddef.h>
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define H1_HAVE_X86 1
#endif

#define H1_PROBE 32

/* Bit i stands for byte i of the probe. */
struct h1_chunk {
    uint32_t lf, cr, nul, colon, ws;
};

enum h1_simd { H1_SIMD_BYTES, H1_SIMD_SSE2, H1_SIMD_AVX2 };

/* The widest probe this CPU has, up to `limit`: a parser uses
 * h1_simd_level(H1_SIMD_AVX2); tests lower the limit (h1_use_probe) to run
 * every version on the same machine. */
enum h1_simd h1_simd_level(enum h1_simd limit);

/* 32 copies of each byte the probes look for, aligned for loads. They are
 * defined in h1scan.c, out of the compiler's sight here, so that it loads
 * each (one instruction, often folded into the compare) instead of building
 * it from an immediate (three) wherever a call has clobbered the vector
 * registers. */
enum { H1_WANT_LF, H1_WANT_CR, H1_WANT_COLON, H1_WANT_SP, H1_WANT_TAB, H1_WANT_COUNT };
extern const uint8_t h1_want[H1_WANT_COUNT][H1_PROBE];

/* Eight bytes as a word, the first in the low bits, on any machine (the
 * compiler makes it one load where the machine is little-endian). */
static inline uint64_t h1_le64(const uint8_t *s)
{
    return (uint64_t)s[0] | (uint64_t)s[1] << 8 | (uint64_t)s[2] << 16 | (uint64_t)s[3] << 24 |
           (uint64_t)s[4] << 32 | (uint64_t)s[5] << 40 | (uint64_t)s[6] << 48 |
           (uint64_t)s[7] << 56;
}

/* The bytes of x equal to the byte that c repeats, as one bit each (byte i
 * is bit i): t's byte is zero exactly when its low seven bits plus 0x7f do
 * not carry into bit 7 and bit 7 is clear (no carry crosses a byte); the
 * multiply then gathers the eight high bits into the top byte. */
static inline uint32_t h1_eq8(uint64_t x, uint64_t c)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t t = x ^ c;
    uint64_t zero = ~(((t & low7) + low7) | t) & ~low7;
    return (uint32_t)(((zero >> 7) * 0x0102040810204080ull) >> 56);
}

/* The masks of s[0..32), which must all be readable: eight bytes at a time
 * in a 64-bit word (SWAR), for machines without the vector versions. */
static inline struct h1_chunk h1_probe_bytes(const uint8_t *s)
{
    const uint64_t ones = 0x0101010101010101ull;
    struct h1_chunk c = {0, 0, 0, 0, 0};
    for (unsigned i = 0; i < H1_PROBE; i += 8) {
        uint64_t x = h1_le64(s + i);
        c.lf |= h1_eq8(x, '\n' * ones) << i;
        c.cr |= h1_eq8(x, '\r' * ones) << i;
        c.nul |= h1_eq8(x, 0) << i;
        c.colon |= h1_eq8(x, ':' * ones) << i;
        c.ws |= (h1_eq8(x, ' ' * ones) | h1_eq8(x, '\t' * ones)) << i;
    }
    return c;
}

#if defined(__SSE2__)
/* Byte compares of two 16-byte halves as one 32-bit mask. */
static inline uint32_t h1_bits_sse2(__m128i lo, __m128i hi)
{
    return (uint32_t)_mm_movemask_epi8(lo) | (uint32_t)_mm_movemask_epi8(hi) << 16;
}

/* The compare of x with 16 copies of byte h1_want[i]. */
#define H1_EQ16(x, i) _mm_cmpeq_epi8((x), _mm_load_si128((const __m128i *)(const void *)h1_want[i]))

static inline struct h1_chunk h1_probe_sse2(const uint8_t *s)
{
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    struct h1_chunk c;
    c.lf = h1_bits_sse2(H1_EQ16(a, H1_WANT_LF), H1_EQ16(b, H1_WANT_LF));
    c.cr = h1_bits_sse2(H1_EQ16(a, H1_WANT_CR), H1_EQ16(b, H1_WANT_CR));
    c.nul = h1_bits_sse2(_mm_cmpeq_epi8(a, _mm_setzero_si128()),
                         _mm_cmpeq_epi8(b, _mm_setzero_si128()));
    c.colon = h1_bits_sse2(H1_EQ16(a, H1_WANT_COLON), H1_EQ16(b, H1_WANT_COLON));
    c.ws = h1_bits_sse2(_mm_or_si128(H1_EQ16(a, H1_WANT_SP), H1_EQ16(a, H1_WANT_TAB)),
                        _mm_or_si128(H1_EQ16(b, H1_WANT_SP), H1_EQ16(b, H1_WANT_TAB)));
    return c;
}
#endif

#if defined(H1_HAVE_X86)
/* The target attribute lets the probe use AVX2 (and BMI, which every CPU
 * with AVX2 has) in a build for the baseline CPU; only code that has
 * checked h1_simd_level() calls it. */
#define H1_AVX2 __attribute__((target("avx2,bmi,bmi2")))

H1_AVX2 static inline uint32_t h1_bits_avx2(__m256i x)
{
    return (uint32_t)_mm256_movemask_epi8(x);
}

#define H1_EQ32(x, i)                                                                              \
    _mm256_cmpeq_epi8((x), _mm256_load_si256((const __m256i *)(const void *)h1_want[i]))

H1_AVX2 static inline struct h1_chunk h1_probe_avx2(const uint8_t *s)
{
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)s);
    struct h1_chunk c;
    c.lf = h1_bits_avx2(H1_EQ32(x, H1_WANT_LF));
    c.cr = h1_bits_avx2(H1_EQ32(x, H1_WANT_CR));
    c.nul = h1_bits_avx2(_mm256_cmpeq_epi8(x, _mm256_setzero_si256()));
    c.colon = h1_bits_avx2(H1_EQ32(x, H1_WANT_COLON));
    c.ws = h1_bits_avx2(_mm256_or_si256(H1_EQ32(x, H1_WANT_SP), H1_EQ32(x, H1_WANT_TAB)));
    return c;
}
#endif

#endif
