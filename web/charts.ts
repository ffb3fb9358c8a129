// The study's charts in the page: the ladder, the roofline and prefill vs
// decode (clocks per token) drawn live by
// vega-embed from the same Vega-Lite specs `picotpu sweep` renders to
// docs/figures (study/sweep/charts.ts), from the sweep records the build
// bundled (web/vite.config.ts studyRecords). Missing records: one line saying
// which sweep makes them.

import embed from 'vega-embed';
import { chartSpec, ladderChart, prefillDecodeChart, rooflineChart } from '../study/sweep/charts.ts';
import type { RunRecord } from '../study/sweep/runs.ts';
import { STUDY_RECORDS } from './protocol.ts';

const CHARTS = [
  { name: 'ladder', chart: ladderChart },
  { name: 'roofline', chart: rooflineChart },
  { name: 'prefill-decode', chart: prefillDecodeChart },
] as const;

/** Draws each chart into #chart-<name>; resolves when all are drawn (or said missing). */
export async function drawCharts(): Promise<void> {
  const r = await fetch(STUDY_RECORDS);
  const records = (r.ok ? await r.json() : {}) as Record<string, RunRecord[] | null>;
  await Promise.all(CHARTS.map(async ({ name, chart }) => {
    const el = document.getElementById(`chart-${name}`)!;
    const rs = records[name];
    if (!rs) {
      el.textContent = `no ${name} records in this build: run picotpu sweep ${name}, then npm run build:web`;
      return;
    }
    await embed(el, chartSpec(chart(rs)), { actions: false, renderer: 'svg' });
    el.dataset.drawn = 'yes';
  }));
}
