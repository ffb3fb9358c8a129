/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) computed bit by
 * bit and with a 256-entry table; both must give the standard check value
 * 0xCBF43926 for "123456789" and agree on a longer buffer. */
#include <string.h>

#include "picotpu.h"

static uint32_t crc32_bitwise(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xFFFFFFFFu;
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}

static uint32_t table[256];

static void crc32_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xEDB88320u & -(c & 1));
		table[i] = c;
	}
}

static uint32_t crc32_table(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xFFFFFFFFu;
	while (n--)
		crc = (crc >> 8) ^ table[(crc ^ *p++) & 0xFF];
	return ~crc;
}

static uint8_t buf[1024];

int main(void)
{
	const char *check = "123456789";
	const uint32_t expected = 0xCBF43926u;
	int fails = 0;

	crc32_init();
	uint32_t b = crc32_bitwise((const uint8_t *)check, strlen(check));
	uint32_t t = crc32_table((const uint8_t *)check, strlen(check));
	printf("crc32(\"%s\"): bitwise %08lx table %08lx\n", check, b, t);
	if (b != expected || t != expected) {
		printf("FAIL: expected %08lx\n", expected);
		fails |= 1;
	}

	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 7 + (i >> 3));
	uint32_t c0 = rdcycle();
	b = crc32_bitwise(buf, sizeof buf);
	uint32_t c1 = rdcycle();
	t = crc32_table(buf, sizeof buf);
	uint32_t c2 = rdcycle();
	printf("crc32(%u bytes): bitwise %08lx (%lu clocks) table %08lx (%lu clocks)\n",
	       (unsigned)sizeof buf, b, c1 - c0, t, c2 - c1);
	if (b != t) {
		puts("FAIL: bitwise and table CRCs differ");
		fails |= 2;
	}
	return fails;
}
