// The TPU as the tools show it (the debugger's `info units`, GDB's `monitor
// units`): each unit's STATUS word and its fields, and wait tokens, decoded
// through periph/regs.ts — one decoding shared by both views, so neither can
// drift from the register map the firmware and the TPU use.

import { UNIT_NAMES } from '../../periph/counters.ts';
import { STATUS_FIELD, TOKEN_FIELD, unpackField } from '../../periph/regs.ts';
import { unitStatus, type Tpu } from '../../periph/tpu.ts';

type Unit = Tpu['units'][number];

export interface UnitView {
  readonly name: (typeof UNIT_NAMES)[number];
  /** STATUS as the CPU would read it now. */
  readonly status: number;
  readonly busy: boolean;
  readonly queued: number;
  /** STATUS.ERROR: the unit dropped a command since ERROR was cleared. */
  readonly error: boolean;
  readonly issued: number;
  readonly done: number;
}

export function unitView(u: Unit): UnitView {
  const status = unitStatus(u);
  return {
    name: u.name,
    status,
    busy: unpackField(STATUS_FIELD.BUSY, status) === 1,
    queued: unpackField(STATUS_FIELD.QUEUED, status),
    error: unpackField(STATUS_FIELD.ERROR, status) === 1,
    issued: u.issued,
    done: u.done,
  };
}

export interface WaitToken {
  /** 1-based unit number (DMA 1, MXU 2, VPU 3). */
  readonly unit: number;
  readonly unitName: (typeof UNIT_NAMES)[number];
  readonly ticket: number;
}

/** A command's wait token (ARG5) decoded, or null when it waits on nothing. */
export function waitToken(token: number): WaitToken | null {
  const unit = unpackField(TOKEN_FIELD.UNIT, token);
  if (unit === 0) return null;
  return { unit, unitName: UNIT_NAMES[unit - 1], ticket: unpackField(TOKEN_FIELD.TICKET, token) };
}

/** Whether the token still holds its command back (its unit's DONE below the ticket). */
export function tokenUnmet(tpu: Tpu, token: number): boolean {
  const t = waitToken(token);
  return t !== null && tpu.units[t.unit - 1].done < t.ticket;
}
