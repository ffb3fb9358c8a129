// The debugger's commands as `help` lists them and completion offers them.

import { DebugError } from './program.ts';

/** Command names readline completion offers. */
export const COMMANDS = [
  'backtrace', 'break', 'clear', 'clock', 'continue', 'delete', 'disassemble', 'finish', 'help', 'info', 'next',
  'nexti', 'print', 'quit', 'restart', 'run', 'start', 'starti', 'step', 'stepi', 'tbreak', 'until', 'advance', 'watch', 'x',
];

/** `help`: every command with its first sentence; `help CMD`: that command's whole text. */
export function helpLines(topic?: string): string[] {
  if (topic) {
    const t = topic.toLowerCase();
    const entry = HELP.find(([names]) => names.split(/[ ,|/]+/).some((n) => n === t));
    if (!entry) throw new DebugError(`help: no command "${topic}"`);
    return [`${entry[0]}: ${entry[1]}`];
  }
  return [
    'Commands (locations: a symbol, 0x address, symbol+0x10, $reg; memory also spad:0x1234):',
    ...HELP.map(([names, text]) => `  ${names.padEnd(28)} ${text.split('. ')[0].replace(/\.$/, '')}`),
  ];
}

const HELP: [string, string][] = [
  ['break|b LOC', 'Set a breakpoint at a symbol, address or symbol+offset (break main, break 0x104, break crc32_table+0x10). Stops before the instruction there executes'],
  ['tbreak LOC', 'A breakpoint that deletes itself when hit'],
  ['delete|d [N|LOC...]', 'Delete breakpoints/watchpoints by number or location; with no argument, all of them'],
  ['clear LOC', 'Delete the breakpoint at a location'],
  ['watch LOC [LEN]', 'Stop after any CPU store that writes those bytes (a symbol\'s size, else 4), printing the old and new values. DMA writes are not seen'],
  ['info breakpoints', 'List breakpoints and watchpoints with their hit counts'],
  ['step|stepi|s [N]', 'Execute N instructions (default 1)'],
  ['next|nexti|n [N]', 'Like step, but a call (jal/jalr writing ra) runs until it returns to the next instruction in the same frame'],
  ['finish', 'Run until the current function returns to its caller (found by the frame walk), then print a0'],
  ['continue|c [N]', 'Run until a breakpoint, a watchpoint, or the program stops. With N, pass over the breakpoint it stopped at N-1 more times'],
  ['until|u [LOC]', 'Run until LOC is reached or the current function returns; without LOC, like next, but a jump back in a loop does not stop'],
  ['advance LOC', 'Same as until LOC'],
  ['info registers|i r [REG...]', 'The registers with ABI names, in hex and decimal, and pc'],
  ['x/NFU ADDR', 'Examine memory: N units, format x d u c s (string) i (instructions), size b h w. ADDR: BRAM, SRAM (0x40000000..), TPU registers (0x20000000..), scratchpad spad:0x1234, a symbol or $reg. "x" alone continues'],
  ['print|p EXPR', 'The value of a $register, a symbol (address, size, contents) or a sum such as $sp+8'],
  ['disassemble [LOC [N]]', 'Disassemble around pc (or N instructions at LOC; a function name gives the whole function), marking pc with =>'],
  ['backtrace|bt [N]', 'The call stack, by walking frames with each function\'s prologue (addi sp,sp,-N; sw ra,K(sp))'],
  ['info units', 'The TPU: each unit\'s queue with every command described, the running command, STATUS, ISSUED/DONE, errors, counters'],
  ['clock|info clock', 'The current clock, in ms at the board clock, instructions retired, and the clocks since the previous stop'],
  ['info symbol ADDR', 'The symbol+offset of an address'],
  ['run|r', 'Reload the program, reset the board and run it to a breakpoint (also one at the first instruction), a watchpoint or the end, as gdb\'s run; breakpoints stay'],
  ['start', 'A temporary breakpoint at main, then run'],
  ['restart|starti', 'Reload the program and reset the board, stopped at the first instruction; breakpoints stay'],
  ['help [CMD]', 'This list, or one command'],
  ['quit|q', 'Leave the debugger'],
];
