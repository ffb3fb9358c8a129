/* Seed board: accesses the RTL's decoder aliases (it checks only a[31:28]):
 * a store to 0x4000 lands on the RAM word at 0, a read of region 0x5 returns
 * the firmware RAM word at the same a[13:2], a store there is dropped. */
#include "seed.h"

volatile uint32_t word0_copy;

int main(void) {
  SEED_REG(0x00004000u + 0x3ff0) = 0x5eed5eedu;          /* aliases RAM 0x3ff0 (stack area top) */
  uint32_t mirror = SEED_REG(0x50000000u + 0x3ff0);       /* region 5: fw_q of 0x3ff0 */
  SEED_REG(0x50000000u) = 0xdeadbeefu;                    /* dropped */
  word0_copy = mirror;
  return mirror == 0x5eed5eedu ? 0 : 1;
}
