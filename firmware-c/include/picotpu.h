/* One include for picotpu firmware: memory map, console, exit, counters. */
#ifndef PICOTPU_H
#define PICOTPU_H

#include "platform.h"
#include "console.h"
#include "sim.h"
#include "cycles.h"

#endif
