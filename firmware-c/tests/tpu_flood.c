/* tpu_flood: 5,000,000 cheap TPU commands as fast as the CPU can push them,
 * for the memory bound of `picotpu run` with every observer on
 * (test/io-limits.test.ts). The VPU's staging registers keep their values, so
 * after staging one ReLU of a single 8-element row the loop is nothing but
 * PUSH stores, 16 to an iteration. Exits 0 when the VPU has done every
 * command without an error. */
#include "picotpu.h"
#include "tpu.h"

#define COMMANDS 5000000u
#define UNROLL 16u

int main(void) {
  const struct vpu_op relu = { .a = 0, .b = 0, .c = 0x100, .a_stride = 4, .b_stride = 4, .c_stride = 4, .rows = 1, .cols = 8, .param = 0 };
  vpu_relu(&relu); /* stages ARG0..ARG5 and pushes the first command */
  volatile uint32_t *push = &TPU_UREG(tpu_unit_base(TPU_UNIT_VPU), TPU_UNIT_PUSH);
  const uint32_t value = TPU_PUSH_VALUE(TPU_VPU_RELU, 0);
#define PUSH4 *push = value; *push = value; *push = value; *push = value;
  for (uint32_t n = 1; n + UNROLL <= COMMANDS; n += UNROLL) {
    PUSH4 PUSH4 PUSH4 PUSH4 /* UNROLL stores */
  }
  for (uint32_t n = 1 + ((COMMANDS - 1) / UNROLL) * UNROLL; n < COMMANDS; n++) *push = value;
  while (tpu_done(TPU_UNIT_VPU) != COMMANDS) {
  }
  uint32_t err = tpu_error();
  printf("tpu_flood: %lu VPU commands, error 0x%lx\n", (unsigned long)tpu_done(TPU_UNIT_VPU), (unsigned long)err);
  return err != 0;
}
