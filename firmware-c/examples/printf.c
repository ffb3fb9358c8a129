/* Self-test of the runtime's printf core through snprintf: every supported
 * conversion, flag and modifier against the expected text. */
#include <string.h>

#include "picotpu.h"

static int fails;

#define CHECK(expected, ...)                                                 \
	do {                                                                 \
		char buf_[64];                                               \
		int n_ = snprintf(buf_, sizeof buf_, __VA_ARGS__);            \
		if (strcmp(buf_, expected) != 0 || n_ != (int)strlen(expected)) { \
			printf("FAIL line %d: got \"%s\" (%d), expected \"%s\"\n", \
			       __LINE__, buf_, n_, expected);                \
			fails++;                                             \
		}                                                            \
	} while (0)

int main(void)
{
	const char *volatile null_str = NULL;   /* volatile: GCC warns on a literal NULL */

	CHECK("0 -1 2147483647 -2147483648", "%d %i %d %d", 0, -1, 2147483647, (int)-2147483647 - 1);
	CHECK("4294967295 ffffffff FFFFFFFF", "%u %x %X", 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu);
	CHECK("123 -45 ab", "%ld %li %lx", 123L, -45L, 0xABUL);
	CHECK("18446744073709551615", "%llu", 0xFFFFFFFFFFFFFFFFull);
	CHECK("-9223372036854775808", "%lld", (long long)(-9223372036854775807LL - 1));
	CHECK("1234567890123 123456789abcdef0", "%lld %llx", 1234567890123LL, 0x123456789ABCDEF0ull);
	CHECK("[   42] [42   ] [00042] [-0042] [  -42]", "[%5d] [%-5d] [%05d] [%05d] [%5d]", 42, 42, 42, -42, -42);
	CHECK("[0000beef] [  ab] [ab  ]", "[%08x] [%4x] [%-4x]", 0xBEEFu, 0xABu, 0xABu);
	CHECK("[x] [  x] [x  ] %", "[%c] [%3c] [%-3c] %%", 'x', 'x', 'x');
	CHECK("[hi] [   hi] [hi   ] (null)", "[%s] [%5s] [%-5s] %s", "hi", "hi", "hi", null_str);
	CHECK("0x00001234 0x00000000", "%p %p", (void *)0x1234, (void *)0);

	/* Truncation still returns the full length and terminates. */
	char small[6];
	int n = snprintf(small, sizeof small, "%s", "truncated");
	if (n != 9 || strcmp(small, "trunc") != 0) {
		printf("FAIL: truncation gave \"%s\" (%d)\n", small, n);
		fails++;
	}
	if (snprintf(NULL, 0, "%d", 12345) != 5) {
		puts("FAIL: snprintf(NULL, 0) length");
		fails++;
	}

	printf("printf: %d failures\n", fails);
	return fails ? 1 : 0;
}
