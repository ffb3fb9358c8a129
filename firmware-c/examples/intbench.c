/* Integer benchmark: runs the intmix workload for a number of rounds read
 * as decimal digits from the console input (default 200), and prints the
 * checksum, clocks, instructions and CPI measured with the counters. */
#include "picotpu.h"
#include "intmix.h"

#define DEFAULT_ITERS UINT32_C(200)
#define DEFAULT_CHECKSUM UINT32_C(0xb5b2a4f7)   /* host build of intmix.h, 200 rounds */

/* Leading digits of the input; anything else ends the number. */
static uint32_t read_count(uint32_t fallback)
{
	uint32_t n = 0;
	int c, digits = 0;
	while ((c = getchar()) >= '0' && c <= '9') {
		n = n * 10 + (uint32_t)(c - '0');
		digits++;
	}
	return digits ? n : fallback;
}

static struct mix m;

int main(void)
{
	uint32_t iters = read_count(DEFAULT_ITERS);

	uint64_t c0 = rdcycle64(), i0 = rdinstret64();
	uint32_t sum = mix_run(&m, iters);
	uint64_t c1 = rdcycle64(), i1 = rdinstret64();

	uint64_t clocks = c1 - c0, insns = i1 - i0;
	uint32_t cpi_milli = insns ? (uint32_t)(clocks * 1000 / insns) : 0;
	printf("intbench: %lu rounds checksum %08lx\n", iters, sum);
	printf("intbench: %llu clocks %llu instructions CPI %lu.%03lu\n",
	       clocks, insns, cpi_milli / 1000, cpi_milli % 1000);

	if (m.errors) {
		printf("FAIL: %lu divide checks failed\n", m.errors);
		return 1;
	}
	if (iters == DEFAULT_ITERS && sum != DEFAULT_CHECKSUM) {
		printf("FAIL: expected checksum %08lx\n", DEFAULT_CHECKSUM);
		return 2;
	}
	return 0;
}
