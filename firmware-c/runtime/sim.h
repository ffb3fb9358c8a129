/* Simulation control: stop the machine with an exit status. */
#ifndef PICOTPU_SIM_H
#define PICOTPU_SIM_H

#include "platform.h"

/* The emulator halts on the store and exits with (code & 0xFF). */
static inline __attribute__((noreturn)) void sim_exit(int code)
{
	MMIO32(SIM_EXIT_ADDR) = (uint32_t)code;
	for (;;)
		;
}

#endif
