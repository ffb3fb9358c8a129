/* VARIANT_SEQUENCER: command lists recorded into the sequencer's list memory
 * and replayed (the sequencer what-if with a list memory, docs/hardware.md
 * §5.11; run with --set sequencer=1 --set seqListKiB=N).
 *
 * Recording costs nothing per command: with RECORD on, the TPU writes every
 * command the CPU pushes into the list memory as an entry (its token made
 * relative to the list), while the command runs as usual. A replay is one
 * RUN; the CPU then waits for the sequencer's DONE before it pushes again,
 * so that its commands queue behind the list's (a unit's queue is in order,
 * and so are its tickets). */
#include "kernels.h"
#include "seq.h"

#define SEQ_REG(off) TPU_UREG(TPU_SEQ_BASE, off)

void seq_record_begin(struct seq_book *b, struct seq_list *l) {
  l->addr = b->top;
  for (unsigned u = 0; u < 3; u++) l->pushed[u] = tpu_pushed[TPU_UNIT_DMA + u];
  SEQ_REG(TPU_SEQ_LIST_PTR) = b->top;
  SEQ_REG(TPU_SEQ_RECORD) = 1;
}

uint32_t seq_recorded_last(const struct seq_list *l) {
  uint32_t n = 0;
  for (unsigned u = 0; u < 3; u++) n += tpu_pushed[TPU_UNIT_DMA + u] - l->pushed[u];
  return n - 1;
}

void seq_record_end(struct seq_book *b, struct seq_list *l) {
  SEQ_REG(TPU_SEQ_RECORD) = 0;
  l->count = seq_recorded_last(l) + 1;
  for (unsigned u = 0; u < 3; u++) l->pushed[u] = tpu_pushed[TPU_UNIT_DMA + u] - l->pushed[u];
  b->top += l->count * TPU_SEQ_ENTRY_BYTES;
}

void seq_patch(const struct seq_list *l, uint32_t entry, uint32_t word, uint32_t value) {
  SEQ_REG(TPU_SEQ_LIST_PTR) = l->addr + entry * TPU_SEQ_ENTRY_BYTES + 4u * word;
  SEQ_REG(TPU_SEQ_LIST_DATA) = value;
}

void seq_replay(struct seq_book *b, const struct seq_list *l) {
  seq_run(l->addr, l->count, 0);
  for (unsigned u = 0; u < 3; u++) tpu_pushed[TPU_UNIT_DMA + u] += l->pushed[u];
  seq_wait(++b->runs); /* the sequencer's DONE: every entry is in its unit's queue */
}
