/* Seed board: the MXU with A and B in one bank is starved for ever (scratchpad.sv), and the
 * commit of the ninth command behind it can never land: the RTL hangs in that store until
 * the host gives up; the emulator stops there with the TPU deadlock status (163). */
#include "seed.h"

int main(void) {
  seed_push(SEED_UNIT_MXU, 0x01, 0x00080008, 0x00080008, 8);      /* MXU_GEOM: strides, K = 8 */
  /* MXU_MM with A at 0x0000 and B at 0x0100: both in bank 0. */
  for (int i = 0; i < 10; i++) seed_push(SEED_UNIT_MXU, 0x02 | (0x100u << 16), 0x0000, 0x0100, 0x00000001);
  return 0;
}
