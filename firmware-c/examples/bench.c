/* Long CPU workload for `npm run bench:cpu`: the intmix rounds of intbench,
 * enough of them for about 150 M clocks (CPI about 4), with a fixed count
 * so the checksum is known. */
#include "picotpu.h"
#include "intmix.h"

#define ITERS UINT32_C(136000)
#define CHECKSUM UINT32_C(0x8274c1a4)   /* host build of intmix.h */

static struct mix m;

int main(void)
{
	uint64_t c0 = rdcycle64(), i0 = rdinstret64();
	uint32_t sum = mix_run(&m, ITERS);
	uint64_t c1 = rdcycle64(), i1 = rdinstret64();

	uint64_t clocks = c1 - c0, insns = i1 - i0;
	uint32_t cpi_milli = insns ? (uint32_t)(clocks * 1000 / insns) : 0;
	printf("bench: %lu rounds checksum %08lx\n", ITERS, sum);
	printf("bench: %llu clocks %llu instructions CPI %lu.%03lu\n",
	       clocks, insns, cpi_milli / 1000, cpi_milli % 1000);

	if (m.errors) {
		printf("FAIL: %lu divide checks failed\n", m.errors);
		return 1;
	}
	if (sum != CHECKSUM) {
		printf("FAIL: expected checksum %08lx\n", CHECKSUM);
		return 2;
	}
	return 0;
}
