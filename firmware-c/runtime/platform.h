/* picotpu memory map (PLATFORM.md sections 3-5). Kept free of C so that
 * crt0.S can include it too. */
#ifndef PICOTPU_PLATFORM_H
#define PICOTPU_PLATFORM_H

#define BRAM_BASE       0x00000000
#define BRAM_SIZE       0x00010000      /* 64 KiB: code, data, stack */
#define SRAM_BASE       0x40000000
#define SRAM_SIZE       0x00080000      /* 512 KiB external SRAM */
/* TPU_BASE and the TPU registers: tpu_regs.h (generated). */

/* Console and simulation control. */
#define CONSOLE_BASE    0x10000000
#define CONSOLE_TX_ADDR (CONSOLE_BASE + 0x0)    /* W: low byte to stdout */
#define CONSOLE_RX_ADDR (CONSOLE_BASE + 0x4)    /* R: next input byte, or ~0 */
#define SIM_EXIT_ADDR   (CONSOLE_BASE + 0x8)    /* W: halt, status = value & 0xFF */

#ifndef __ASSEMBLER__
#include <stdint.h>

#define MMIO32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* Initialised data that the loader writes into the external SRAM before
 * reset (the way weights and inputs arrive). The CPU reads it at SRAM cost:
 * +2 AXI clocks and 1 clock per byte. */
#define SRAM_DATA __attribute__((section(".sram"), aligned(4)))

/* Uninitialised SRAM buffers. Not zeroed at start-up: treat as undefined. */
#define SRAM_BSS __attribute__((section(".sram_bss"), aligned(4)))
#endif

#endif
