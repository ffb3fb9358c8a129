/* seq.h: the command sequencer of the `sequencer` what-if (docs/hardware.md
 * §5.11), for firmware run with --set sequencer=1 (without it the SEQ block
 * is a bus error). A list is built in the SRAM as 32-byte entries, loaded
 * into the scratchpad by one DMA LOAD, and run by RUN commands, each of which
 * pushes the entries into the units' queues at one a clock.
 *
 * With a list memory (--set seqListKiB=N, docs/hardware.md §5.11) lists live
 * there instead: written through TPU_SEQ_LIST_PTR/LIST_DATA or captured with
 * TPU_SEQ_RECORD (kernels/sequencer.c), and LIST_ADDR addresses them.
 *
 * Tickets in a list are best relative (SEQ_REL): k ≥ 1 names the k-th
 * command the list pushes to that unit, k ≤ 0 the commands before the list,
 * so one list can be run again and again. The sequencer's own commands are
 * not counted in tpu_pushed[] (its DONE is read directly). */
#ifndef SEQ_H
#define SEQ_H

#include <stdint.h>
#include "tpu.h"

/* A token for an entry: wait until `unit` has finished the list's k-th
 * command to it (k ≤ 0: the commands before the list, less −k). */
#define SEQ_REL(unit, k) (TPU_SEQ_ENTRY_TOKEN_UNIT(unit) | TPU_SEQ_ENTRY_TOKEN_TICKET((uint32_t)(k)))

/* Writes entry `e` (8 words, in SRAM): one command of `unit`, or with unit 0
 * and TPU_SEQ_ENTRY_WAIT a hold until `token` is met. `relative`: the
 * token's ticket is relative to the list (SEQ_REL). */
static inline void seq_entry(volatile uint32_t *e, unsigned unit, uint32_t opcode, uint32_t flags,
                             const uint32_t args[5], uint32_t token, int relative) {
  for (unsigned i = 0; i < 5; i++) e[i] = args ? args[i] : 0;
  e[5] = token;
  e[6] = TPU_SEQ_ENTRY_CMD_OPCODE(opcode) | TPU_SEQ_ENTRY_CMD_FLAGS(flags) | TPU_SEQ_ENTRY_CMD_UNIT(unit)
       | TPU_SEQ_ENTRY_CMD_REL_TOKEN(relative ? 1u : 0u);
  e[7] = 0;
}

/* Pushes RUN: `count` entries from scratchpad address `list` (a multiple of
 * 32), once the DMA has finished `dma_ticket` commands (0: no wait) — the
 * LOAD that brought the list in. */
static inline void seq_run(uint32_t list, uint32_t count, uint32_t dma_ticket) {
  TPU_UREG(TPU_SEQ_BASE, TPU_UNIT_ARG0) = TPU_SEQ_LIST_ADDR(list);
  TPU_UREG(TPU_SEQ_BASE, TPU_UNIT_ARG1) = TPU_SEQ_COUNT(count);
  TPU_UREG(TPU_SEQ_BASE, TPU_UNIT_ARG5) = dma_ticket ? TPU_TOKEN(TPU_UNIT_DMA, dma_ticket) : TPU_NO_TOKEN;
  tpu_memory_barrier();
  TPU_UREG(TPU_SEQ_BASE, TPU_UNIT_PUSH) = TPU_PUSH_VALUE(TPU_SEQ_RUN, 0);
}

/* After lists have run: the units' ISSUED counts into tpu_pushed[], so that
 * the tickets of CPU-pushed commands count the lists' commands too. */
static inline void seq_sync_pushed(void) {
  for (unsigned u = TPU_UNIT_DMA; u <= TPU_UNIT_VPU; u++) tpu_pushed[u] = tpu_issued(u);
}

/* RUN commands finished (or dropped) so far. */
static inline uint32_t seq_done(void) { return TPU_UREG(TPU_SEQ_BASE, TPU_UNIT_DONE); }

/* Poll until `runs` RUN commands have finished. */
static inline void seq_wait(uint32_t runs) {
  while ((int32_t)(seq_done() - runs) < 0) { }
  tpu_memory_barrier();
}

#endif /* SEQ_H */
