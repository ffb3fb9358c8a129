/* State behind tpu.h's inline calls: one copy for the whole program, since
 * the staging registers it mirrors are one set in hardware. Indexed by
 * TPU_UNIT_* (1..3); index 0 is unused. */
#include "tpu.h"

uint32_t tpu_pushed[4];
uint32_t tpu_next_token[4];
uint32_t tpu_staged_token[4];
/* LINK SENDs pushed so far (tpu.h link_send); --gc-sections drops it from
 * programs that do not use the link. */
uint32_t tpu_link_pushed;
