// The TPU as the tools show it (the debugger's `info units`, GDB's `monitor
// units`): each unit's STATUS word and its fields, and wait tokens, decoded
// through periph/regs.ts — one decoding shared by both views, so neither can
// drift from the register map the firmware and the TPU use.

import { UNIT_NAMES } from '../../periph/counters.ts';
import { STATUS_FIELD, TOKEN_FIELD, unpackField } from '../../periph/regs.ts';
import { WAITING_ON_TOKEN } from '../../periph/seq.ts';
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

/**
 * The sequencer (the `sequencer` what-if, hardware.md §5.11) as both views
 * show it: its STATUS, ISSUED and DONE, the RUN it runs with the entry it is
 * at and what that entry waits for, its queued RUNs, and the list memory.
 * Empty without the option.
 */
export function seqLines(tpu: Tpu): string[] {
  const seq = tpu.seq;
  if (!seq) return [];
  const v = unitView(seq as unknown as Unit);
  const lines = [`SEQ  STATUS 0x${(v.status >>> 0).toString(16).padStart(8, '0')} (${v.busy ? 'busy' : 'idle'}, ${v.queued} queued${v.error ? ', ERROR bit' : ''})  ISSUED ${v.issued}  DONE ${v.done}`];
  if (seq.running) {
    const on = seq.model.waitingOn;
    const why = on === WAITING_ON_TOKEN ? ', holding a WAIT entry whose token is not met' : on >= 0 ? `, holding an entry for the full ${UNIT_NAMES[on]} queue` : '';
    lines.push(`  running #${seq.running.serial}: ${seq.rules.describe(seq.running)}, at entry ${seq.model.entryIndex}${why} (started at clock ${seq.runningStart})`);
  }
  for (const cmd of seq.fifo) lines.push(`  queued  #${cmd.serial}: ${seq.rules.describe(cmd)} (pushed at clock ${cmd.pushClock})`);
  const lm = tpu.listMemory;
  if (lm) lines.push(`  list memory ${lm.bytes.length / 1024} KiB, LIST_PTR 0x${lm.ptr.toString(16)}, RECORD ${lm.recording ? 'on' : 'off'}`);
  return lines;
}
