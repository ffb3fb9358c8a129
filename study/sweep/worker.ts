// A sweep worker thread: runs the points it is sent, one at a time. It never
// throws: whatever a message holds, the reply is a record or an error naming
// the point, so one bad point cannot end the thread and the points behind it.
import { parentPort } from 'node:worker_threads';
import { runPoint } from './runs.ts';
import type { PlannedRun } from './engine.ts';

parentPort!.on('message', (p: PlannedRun | null) => {
  const key = typeof p?.key === 'string' ? p.key : String(p?.key);
  try {
    parentPort!.postMessage({ ok: true, record: runPoint(key, p!.point) });
  } catch (e) {
    parentPort!.postMessage({ ok: false, key, error: e instanceof Error ? e.message : String(e) });
  }
});
