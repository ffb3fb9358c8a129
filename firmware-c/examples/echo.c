/* Copies console input to output, upper-cased, until the input runs out. */
#include "picotpu.h"

int main(void)
{
	int c;
	while ((c = getchar()) != EOF) {
		if (c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		putchar(c);
	}
	return 0;
}
