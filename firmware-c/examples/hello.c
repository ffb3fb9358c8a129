/* The smallest check that the CPU, crt0 and the console work. */
#include "picotpu.h"

int main(void)
{
	puts("hello from picotpu");
	return 0;
}
