// A sweep worker thread: runs the points it is sent, one at a time.
import { parentPort } from 'node:worker_threads';
import { runPoint } from './runs.ts';
import type { PlannedRun } from './engine.ts';

parentPort!.on('message', (p: PlannedRun) => {
  try {
    parentPort!.postMessage({ ok: true, record: runPoint(p.key, p.point) });
  } catch (e) {
    parentPort!.postMessage({ ok: false, key: p.key, error: e instanceof Error ? e.message : String(e) });
  }
});
