/* tpu_test.h: small helpers shared by the self-checking TPU firmware tests
 * (firmware-c/tests/, one .c file per test). Everything is static.
 *
 * - a seeded xorshift32 PRNG (no multiply: rv32i has none);
 * - int4 nibble access and the reference arithmetic of PLATFORM.md §6.2
 *   (sat4, rshift) computed without 64-bit or overflowing intermediates;
 * - an int4 x int4 product table, built by additions, for the CPU references;
 * - word copies between BRAM and the external SRAM;
 * - failure bookkeeping: the first failure kind decides the exit code, the
 *   first few failures are printed, and tt_finish prints the one-line summary;
 *   tt_start() arms the optional failure injection (see TT_CHECK).
 *
 * Ordering: the SRAM buffers are plain C objects, but the DMA reads and writes
 * them behind the compiler's back. tpu.h's calls are volatile MMIO accesses
 * without a memory clobber, so GCC may legally move ordinary loads and stores
 * across them. The tests therefore copy through volatile pointers and put
 * tt_barrier() between CPU accesses to SRAM buffers and TPU pushes / waits. */
#ifndef TPU_TEST_H
#define TPU_TEST_H

#include <stdint.h>
#include "picotpu.h"
#include "tpu.h"

#define TT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static inline void tt_barrier(void) { __asm__ volatile("" ::: "memory"); }

/* ---- PRNG ---- */

static uint32_t tt_state = 0x1234567u;

static inline void tt_seed(uint32_t s) { tt_state = s ? s : 0x9E3779B9u; }

static inline uint32_t tt_rand(void)
{
	uint32_t x = tt_state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return tt_state = x;
}

/* A random int4 value, -8..7. */
static inline int tt_rand4(void) { return (int)(tt_rand() >> 28) - 8; }

/* ---- int4 and requantization ---- */

static inline int tt_nib(unsigned n) { return (int)((n & 15u) ^ 8u) - 8; }

/* Element i of a packed int4 buffer (element 2i in the low nibble). */
static inline int tt_get4(const volatile uint8_t *p, unsigned i)
{
	unsigned b = p[i >> 1];
	return tt_nib((i & 1) ? b >> 4 : b);
}

static inline void tt_set4(volatile uint8_t *p, unsigned i, int v)
{
	unsigned b = p[i >> 1];
	if (i & 1)
		b = (b & 0x0Fu) | (((unsigned)v & 15u) << 4);
	else
		b = (b & 0xF0u) | ((unsigned)v & 15u);
	p[i >> 1] = (uint8_t)b;
}

static inline int tt_sat4(int32_t x) { return x < -8 ? -8 : x > 7 ? 7 : (int)x; }

/* rshift(x, s) = (x + 2^(s-1)) >> s, exactly (no 32-bit overflow): with
 * x = q*2^s + r, 0 <= r < 2^s, it is q + (r >= 2^(s-1)), and that is bit s-1
 * of x. rshift(x, 0) = x. */
static inline int32_t tt_rshift(int32_t x, unsigned s)
{
	if (s == 0)
		return x;
	return (x >> s) + (int32_t)(((uint32_t)x >> (s - 1)) & 1u);
}

static inline int tt_requant(int32_t x, unsigned s) { return tt_sat4(tt_rshift(x, s)); }

/* tt_mul[(a & 15) << 4 | (b & 15)] = a * b for int4 a, b; built by addition. */
static int8_t tt_mul[256];

static inline void tt_init_mul(void)
{
	for (int a = -8; a < 8; a++) {
		int p = -(a << 3); /* a * -8 */
		for (int b = -8; b < 8; b++) {
			tt_mul[(((unsigned)a & 15u) << 4) | ((unsigned)b & 15u)] = (int8_t)p;
			p += a;
		}
	}
}

/* ---- SRAM copies (whole words; both pointers 4-byte aligned) ---- */

static inline void tt_to_sram(volatile void *dst, const void *src, unsigned bytes)
{
	volatile uint32_t *d = (volatile uint32_t *)dst;
	const uint32_t *s = (const uint32_t *)src;
	for (unsigned i = 0; i < bytes / 4; i++)
		d[i] = s[i];
	tt_barrier();
}

static inline void tt_from_sram(void *dst, const volatile void *src, unsigned bytes)
{
	tt_barrier();
	const volatile uint32_t *s = (const volatile uint32_t *)src;
	uint32_t *d = (uint32_t *)dst;
	for (unsigned i = 0; i < bytes / 4; i++)
		d[i] = s[i];
}

static inline void tt_fill_sram(volatile void *dst, uint32_t word, unsigned bytes)
{
	volatile uint32_t *d = (volatile uint32_t *)dst;
	for (unsigned i = 0; i < bytes / 4; i++)
		d[i] = word;
	tt_barrier();
}

static inline int32_t tt_rd32(const uint8_t *p)
{
	return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24));
}

/* ---- failures ---- */

static unsigned tt_fail_count;
static int tt_exit_code;
static unsigned tt_checks;

/* Records a failure of kind `code` (the exit code; the first kind wins) and
 * prints the first few. */
#define TT_FAIL(code, ...)                                                     \
	do {                                                                   \
		if (tt_fail_count++ < 8) {                                     \
			printf("FAIL[%d] ", (int)(code));                      \
			printf(__VA_ARGS__);                                   \
			putchar('\n');                                         \
		}                                                              \
		if (!tt_exit_code)                                             \
			tt_exit_code = (code);                                 \
	} while (0)

/* Failure injection, to show that a test can fail: when the host's input
 * starts with a byte n (1..127), the first check of kind n has its outcome
 * inverted, so the program must report that failure and exit with n.
 * Without input (RX reads EOF) nothing changes. */
static int tt_inject;

static inline void tt_start(void)
{
	int c = getchar();
	tt_inject = (c > 0 && c < 128) ? c : 0;
}

#define TT_CHECK(cond, code, ...)                                              \
	do {                                                                   \
		int ok_ = (cond) ? 1 : 0;                                      \
		tt_checks++;                                                   \
		if (tt_inject && tt_inject == (code)) {                        \
			ok_ = !ok_;                                            \
			tt_inject = 0;                                         \
		}                                                              \
		if (!ok_)                                                      \
			TT_FAIL(code, __VA_ARGS__);                            \
	} while (0)

/* Checks that ERROR is 0 and no unit has its STATUS error bit. */
static inline void tt_expect_no_error(int code, const char *where)
{
	uint32_t e = tpu_error();
	TT_CHECK(e == 0, code, "%s: ERROR = 0x%08lx (code %lu unit %lu serial %lu)", where, e,
		 TPU_REG_ERROR_CODE_GET(e), TPU_REG_ERROR_UNIT_GET(e), TPU_REG_ERROR_SERIAL_GET(e));
	for (unsigned u = TPU_UNIT_DMA; u <= TPU_UNIT_VPU; u++) {
		uint32_t st = tpu_status(u);
		TT_CHECK(!TPU_UNIT_STATUS_ERROR_GET(st), code, "%s: unit %u STATUS = 0x%08lx has the error bit", where, u, st);
	}
}

/* Prints the summary line and returns the exit code (0: all passed). */
static inline int tt_finish(const char *name, const char *what)
{
	if (tt_exit_code)
		printf("%s: FAIL (code %d): %u of %u checks failed\n", name, tt_exit_code, tt_fail_count, tt_checks);
	else
		printf("%s: OK: %u checks passed (%s)\n", name, tt_checks, what);
	return tt_exit_code;
}

#endif /* TPU_TEST_H */
