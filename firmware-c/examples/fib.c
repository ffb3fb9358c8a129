/* Recursive Fibonacci: exercises calls, the stack and taken branches. */
#include "picotpu.h"

/* noinline keeps GCC from turning the recursion into a loop. */
static __attribute__((noinline)) uint32_t fib(uint32_t n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
	const uint32_t n = 20, expected = 6765;
	uint32_t t0 = rdcycle();
	uint32_t f = fib(n);
	uint32_t t1 = rdcycle();

	printf("fib(%lu) = %lu (%lu clocks)\n", n, f, t1 - t0);
	if (f != expected) {
		printf("FAIL: expected %lu\n", expected);
		return 1;
	}
	return 0;
}
