/* Quicksort of pseudo-random ints, then checks order and a checksum that
 * does not depend on order (so a sort that loses or duplicates values
 * fails too). */
#include "picotpu.h"

#define N 500

static int32_t a[N];

/* xorshift32: deterministic, no multiply. */
static uint32_t rng_state = 2463534242u;
static uint32_t rng(void)
{
	uint32_t x = rng_state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return rng_state = x;
}

static void swap(int32_t *x, int32_t *y)
{
	int32_t t = *x;
	*x = *y;
	*y = t;
}

/* Hoare-style partition around the middle element; recurse into the smaller
 * side and loop on the larger one, so the stack stays O(log n). */
static void quicksort(int32_t *v, int lo, int hi)
{
	while (lo < hi) {
		int32_t pivot = v[lo + (hi - lo) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j)
				swap(&v[i++], &v[j--]);
		}
		if (j - lo < hi - i) {
			quicksort(v, lo, j);
			lo = i;
		} else {
			quicksort(v, i, hi);
			hi = j;
		}
	}
}

/* Sum and xor of all values: invariant under permutation. */
static uint32_t checksum(const int32_t *v, int n)
{
	uint32_t s = 0, x = 0;
	for (int i = 0; i < n; i++) {
		s += (uint32_t)v[i];
		x ^= (uint32_t)v[i];
	}
	return s ^ (x << 16 | x >> 16);
}

int main(void)
{
	for (int i = 0; i < N; i++)
		a[i] = (int32_t)(rng() % 100000) - 50000;   /* negatives too */
	uint32_t before = checksum(a, N);

	uint32_t t0 = rdcycle();
	quicksort(a, 0, N - 1);
	uint32_t t1 = rdcycle();

	int sorted = 1;
	for (int i = 1; i < N; i++)
		if (a[i - 1] > a[i])
			sorted = 0;
	uint32_t after = checksum(a, N);

	printf("sort %d ints: min %d max %d checksum %08lx (%lu clocks)\n",
	       N, (int)a[0], (int)a[N - 1], after, t1 - t0);
	if (!sorted) {
		puts("FAIL: not sorted");
		return 1;
	}
	if (after != before) {
		printf("FAIL: checksum %08lx before sorting\n", before);
		return 2;
	}
	return 0;
}
