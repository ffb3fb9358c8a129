// Preloaded (node -r) into the whole processes that `npm run bench:speed` times at
// start-up: at exit it writes one line to standard error, the CPU seconds of the
// main thread and of all the others (V8's compiler threads, the GC's helpers), from
// Linux's /proc/self/task/*/schedstat (nanoseconds on a CPU). On a shared machine
// the main thread's CPU time is what the start itself costs, whatever share of a
// core it got; elsewhere than Linux the line is not written.
'use strict';
const { readdirSync, readFileSync, writeSync } = require('node:fs');

process.on('exit', () => {
  let main = 0, other = 0;
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const seconds = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ')[0]) / 1e9;
      if (Number(tid) === process.pid) main += seconds; else other += seconds;
    }
  } catch {
    return; // no /proc: not Linux
  }
  writeSync(2, `thread-cpu main ${main.toFixed(4)} other ${other.toFixed(4)}\n`);
});
