// What the tools show of picotpu's TPU: the debugger's `info units` and GDB's
// `monitor units` / `monitor clocks` (each unit's STATUS, running and queued
// commands with their wait tokens, the errors, the sequencer and the
// counters), through the board interface (emu/board.ts BoardDevices).

import { describeError, type Tpu } from '../../periph/tpu.ts';
import { formatReport, type Counters } from '../../periph/counters.ts';
import { GLOBAL } from '../../periph/regs.ts';
import type { PlatformConfig } from '../../emu/config.ts';
import { hex8 } from '../../emu/machine.ts';
import { seqLines, tokenUnmet, unitView, waitToken } from './tpu-view.ts';

/** `info units`: each unit's STATUS, running and queued commands (with their wait tokens), the errors and the counters. */
export function unitsLines(tpu: Tpu, config: PlatformConfig): string[] {
  const now = tpu.clock;
  const lines = [`TPU at clock ${now}`];
  for (const u of tpu.units) {
    const v = unitView(u);
    const state = `${v.busy ? 'busy' : 'idle'}, ${v.queued} queued${v.error ? ', ERROR bit' : ''}`;
    lines.push(`${v.name}  STATUS 0x${hex8(v.status)} (${state})  ISSUED ${v.issued}  DONE ${v.done}`);
    if (u.running) {
      const cmd = u.running;
      lines.push(`  running #${cmd.serial}: ${u.rules.describe(cmd)}${tokenText(tpu, cmd.token, false)}`);
      lines.push(`           pushed at clock ${cmd.pushClock}, started at ${u.runningStart}, busy ${now - u.runningStart} of about ${u.rules.nominalClocks(cmd)} clocks`);
    }
    u.fifo.forEach((cmd, i) => {
      let why = '';
      if (i === 0 && !u.running) {
        if (tokenUnmet(tpu, cmd.token)) why = '  <- waiting for its token';
        else if (u.headReady() > now) why = `  <- may start at clock ${u.headReady()}`;
      }
      lines.push(`  queued  #${cmd.serial}: ${u.rules.describe(cmd)}${tokenText(tpu, cmd.token, true)} (pushed at clock ${cmd.pushClock})${why}`);
    });
  }
  lines.push(...seqLines(tpu));
  const err = tpu.peek(GLOBAL.ERROR, now) >>> 0;
  lines.push(`ERROR 0x${hex8(err)}${err ? '' : ' (none)'}; ${tpu.errors.length} command${tpu.errors.length === 1 ? '' : 's'} dropped so far`);
  for (const e of tpu.errors.slice(-3)) lines.push(`  ${describeError(e)}`);
  lines.push(...counterLines(config, 'whole run', tpu.whole));
  if (tpu.usedPerfCtrl) {
    // Whether the window is open is the TPU's own state (PERF_CTRL is write-only).
    lines.push(...counterLines(config, `PERF_CTRL window, ${tpu.perfCounting ? 'counting' : 'frozen'}`, tpu.window));
  }
  return lines;
}

function tokenText(tpu: Tpu, token: number, withState: boolean): string {
  const t = waitToken(token);
  if (!t) return '';
  const done = tpu.units[t.unit - 1].done;
  const state = withState ? `, now ${done}${done >= t.ticket ? ': met' : ''}` : '';
  return ` [after ${t.unitName} DONE >= ${t.ticket}${state}]`;
}

function counterLines(config: PlatformConfig, title: string, c: Counters): string[] {
  const snap = c.snapshot();
  const lines = formatReport(snap, config.clockHz).trimEnd().split('\n');
  const pct = snap.cycles ? ((100 * snap.depWait) / snap.cycles).toFixed(1) : '0.0';
  lines.push(`a unit waited on a wait token ${snap.depWait} ${pct}% (DMA ${snap.depWaitByUnit.DMA}, MXU ${snap.depWaitByUnit.MXU}, VPU ${snap.depWaitByUnit.VPU})`);
  return [`counters (${title}):`, ...lines.map((l) => `  ${l}`)];
}

/** GDB's `monitor units`. */
export function monitorUnits(tpu: Tpu, config: PlatformConfig, now: number): string[] {
  tpu.advanceTo(now);
  const depth = config.tpu.queueDepth;
  const lines: string[] = [`TPU units at clock ${now}:`];
  const token = (t: number) => {
    const w = waitToken(t);
    return w ? `, waits for ${w.unitName} DONE ${w.ticket}` : '';
  };
  for (const u of tpu.units) {
    const describe = (c: (typeof u.fifo)[number]) => u.rules.describe(c);
    const v = unitView(u);
    lines.push(`${v.name}: ${v.busy ? 'busy' : 'idle'}, ISSUED ${v.issued}, DONE ${v.done}, `
      + `STATUS.ERROR ${v.error ? 1 : 0}, queue ${v.queued}/${depth}`);
    if (u.running) {
      lines.push(`  running #${u.running.serial} since clock ${u.runningStart} (pushed at ${u.running.pushClock}): `
        + `${describe(u.running)}${token(u.running.token)}`);
    }
    for (const c of u.fifo) lines.push(`  queued  #${c.serial} pushed at clock ${c.pushClock}: ${describe(c)}${token(c.token)}`);
    const errors = tpu.errors.filter((e) => e.unit === u.name);
    for (const e of errors) lines.push(`  error: ${describeError(e)}`);
    if (errors.length === 0) lines.push('  errors: none');
  }
  lines.push(...seqLines(tpu));
  if (tpu.fatal) lines.push(`stopped: ${tpu.fatal}`);
  return lines;
}

/** GDB's `monitor clocks`. */
export function monitorClocks(tpu: Tpu, config: PlatformConfig, now: number, cpu: { instret: number; pc: number; where: string }): string[] {
  tpu.advanceTo(now);
  const where = cpu.where;
  const ms = (now / config.clockHz) * 1000;
  const c = tpu.report();
  const text = `clock ${now} (${ms.toFixed(3)} ms), instret ${cpu.instret}, pc 0x${hex8(cpu.pc)}${where ? ` <${where}>` : ''}\n`
    + `counters (${tpu.usedPerfCtrl ? 'PERF_CTRL window' : 'whole run'}):\n`
    + formatReport(c, config.clockHz)
    + `waiting on a wait token ${c.depWait} (DMA ${c.depWaitByUnit.DMA}, MXU ${c.depWaitByUnit.MXU}, VPU ${c.depWaitByUnit.VPU})\n`;
  return text.replace(/\n$/, '').split('\n');
}
