// The playground's page: loads a bundled firmware, your own ELF or the demo
// into the emulator's worker (web/worker.ts), sends it run / pause / step /
// step over / breakpoint commands, and draws what it posts back: registers,
// disassembly, console, memory, the TPU's units and report, and the timeline.
// `#problem=1234+5678` in the URL opens the demo with that problem and runs it.

import { MAX_PROGRAM_BYTES, programTooBig } from '../emu/elf.ts';
import { drawCharts } from './charts.ts';
import { setupEditor } from './editor.ts';
import { BOARDS, BUNDLED, DEMO_ELFS, demoVariantsOf, type BoardName, DEMO_MODEL, type DemoFigures, type FromWorker, type Sample, type Snapshot, type ToWorker } from './protocol.ts';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
const send = (msg: ToWorker, transfer: Transferable[] = []) => worker.postMessage(msg, transfer);

/** A file of the build's fw/ folder. */
async function fetchBytes(name: string): Promise<ArrayBuffer> {
  const r = await fetch(`fw/${name}`);
  if (!r.ok) throw new Error(`fw/${name}: ${r.status} ${r.statusText}`);
  return r.arrayBuffer();
}

function showError(message: string | null): void {
  const e = $('error');
  e.hidden = message === null;
  e.textContent = message ?? '';
}

/** The board chosen in the page (the programs it loads are made for it). */
const board = (): BoardName => ($('board') as HTMLSelectElement).value as BoardName;

/** The program selector's choices: the board's bundled programs, the demo (picotpu's), and the ELF you chose, if any. */
function fillPrograms(own: string | null): void {
  const program = $('program') as HTMLSelectElement;
  const b = board();
  program.replaceChildren(...BUNDLED[b].map((n) => new Option(`${n}.elf`, n)));
  program.append(new Option(`demo (${DEMO_ELFS[b]}.elf + adder.ptm)`, 'demo'));
  // The board's demo variants, its best chosen.
  const variants = $('variant') as HTMLSelectElement;
  const vs = demoVariantsOf(b);
  variants.replaceChildren(...vs.map((v) => new Option(`${v.name} (variant ${v.variant})`, String(v.variant))));
  variants.value = String(vs[vs.length - 1].variant);
  if (own !== null) program.append(new Option(`your ELF: ${own}`, OWN));
}

/** The selector's value for your own ELF. */
const OWN = '(own)';

async function loadBundled(name: string): Promise<void> {
  showError(null);
  // The selector shows what is loaded, whoever asked for it (the start, the board selector, the program selector).
  ($('program') as HTMLSelectElement).value = name;
  const bytes = await fetchBytes(`${name}.elf`);
  send({ type: 'load', name, bytes, board: board() }, [bytes]);
}

/** The variant chosen for the demo. */
const chosenVariant = () => Number(($('variant') as HTMLSelectElement).value);

async function runDemo(problem: string, variant = chosenVariant()): Promise<void> {
  showError(null);
  $('demo-headline').hidden = true;
  $('demo-report').textContent = '';
  ($('program') as HTMLSelectElement).value = 'demo';
  const b = board();
  const [elf, model] = await Promise.all([fetchBytes(`${DEMO_ELFS[b]}.elf`), fetchBytes(DEMO_MODEL)]);
  send({ type: 'demo', problem, variant, board: b, elf, model }, [elf, model]);
}

// ---- what the worker posts ----

let functionsOf = '';

function render(s: Snapshot): void {
  $('state').textContent = `${s.program}: ${s.state}`;
  $('note').textContent = `clock ${s.clock.toLocaleString('en-US')}, ${s.instret.toLocaleString('en-US')} instructions, pc 0x${s.pc.toString(16).padStart(8, '0')}${s.fn ? ` in ${s.fn}` : ''}${s.note ? ` — ${s.note}` : ''}`;
  if (s.demoPhase && s.demoPhase !== 'done') {
    const h = $('demo-headline');
    h.hidden = false;
    h.textContent = `${s.program} on the TPU: ${s.demoPhase === 'prefill' ? 'prefill (the prompt\'s 64 tokens)' : 'decode (one sum digit per step)'} …`;
  }
  $('registers').textContent = s.registers.join('\n');
  $('units').textContent = s.units.join('\n');
  $('report').textContent = s.report;
  $('console').textContent = s.console;
  $('memory').textContent = s.memory.join('\n');
  const dis = $('disassembly');
  dis.replaceChildren(...s.disassembly.map((l) => {
    const div = document.createElement('div');
    div.textContent = l.text;
    div.dataset.addr = String(l.addr);
    if (l.pc) div.classList.add('pc');
    if (l.breakpoint) div.classList.add('bp');
    return div;
  }));
  const key = `${s.program}:${s.functions.length}`;
  if (key !== functionsOf) {
    functionsOf = key;
    const sel = $('functions') as HTMLSelectElement;
    sel.replaceChildren(new Option('follow the pc', ''), ...s.functions.map((f) => new Option(f.name, String(f.addr))));
  }
}

function showDemo(text: string, f: DemoFigures): void {
  const h = $('demo-headline');
  h.replaceChildren(
    span('demo-sum', `sum ${f.sum ?? '(none)'}`), document.createTextNode('  '),
    span('demo-correct', `correct ${f.correct ? 'yes' : 'NO'}`), document.createTextNode('  '),
    span('demo-rate', `${(f.clocks / 1e6).toFixed(2)} M clocks in ${(f.wallMs / 1000).toFixed(3)} s: ${(f.clocksPerSecond / 1e6).toFixed(1)} M clocks/s`),
  );
  h.hidden = false;
  $('demo-report').textContent = text;
  $('demo-figures').textContent = JSON.stringify(f);
  const w = demoWaiter;
  demoWaiter = null;
  w?.resolve(f);
}

// ---- the ladder: the demo once per variant, the reports side by side ----

/** The ladder waiting for a demo's figures (or for the worker's error, which ends the ladder). */
let demoWaiter: { resolve: (f: DemoFigures) => void; reject: (e: Error) => void } | null = null;

interface Counters { cycles: number; mxuBusy: number; vpuBusy: number; dmaBusy: number; idle: number; stall: number; overlap: number }

async function runLadder(problem: string): Promise<void> {
  const state = $('ladder-state');
  $('ladder-panel').hidden = false;
  const done: { name: string; f: DemoFigures }[] = [];
  const rungs = demoVariantsOf(board());
  for (const { name, variant } of rungs) {
    state.textContent = `running ${name} (variant ${variant}), ${done.length + 1} of ${rungs.length}…`;
    const figures = new Promise<DemoFigures>((resolve, reject) => { demoWaiter = { resolve, reject }; });
    await runDemo(problem, variant);
    try {
      done.push({ name, f: await figures });
    } catch (e) {
      state.textContent = `the ladder stopped at ${name}: ${(e as Error).message}`;
      return;
    }
    drawLadder(done);
  }
  state.textContent = `${problem} on ${board()}: ${rungs.length} variants, each as picotpu demo ${problem} --board ${board()} --variant N prints it`;
}

function drawLadder(done: { name: string; f: DemoFigures }[]): void {
  const pct = (n: number, c: Counters) => `${(c.cycles ? (100 * n) / c.cycles : 0).toFixed(1)}%`;
  const gain = (i: number, pick: (f: DemoFigures) => Counters) => (i ? `${(pick(done[i - 1].f).cycles / pick(done[i].f).cycles).toFixed(2)}x` : '');
  const rows: [string, (f: DemoFigures, i: number) => string][] = [
    ['variant', (f) => String(f.variant)],
    ['sum', (f) => `${f.sum ?? '(none)'} ${f.correct ? '✓' : '✗'}`],
  ];
  for (const [label, pick] of [['prefill', (f: DemoFigures) => f.prefill], ['decode', (f: DemoFigures) => f.decode], ['whole run', (f: DemoFigures) => f.total]] as const) {
    const c = (f: DemoFigures) => pick(f) as Counters;
    rows.push(
      [`${label} clocks`, (f) => c(f).cycles.toLocaleString('en-US')],
      [`${label} gain over the rung before`, (_, i) => gain(i, c)],
      [`${label} MXU / VPU / DMA busy`, (f) => `${pct(c(f).mxuBusy, c(f))} / ${pct(c(f).vpuBusy, c(f))} / ${pct(c(f).dmaBusy, c(f))}`],
      [`${label} no unit busy`, (f) => pct(c(f).idle, c(f))],
    );
  }
  const table = $('ladder');
  const head = document.createElement('tr');
  head.append(cell('th', ''), ...done.map((d) => cell('th', d.name)));
  table.replaceChildren(head, ...rows.map(([label, value]) => {
    const tr = document.createElement('tr');
    tr.dataset.row = label;
    tr.append(cell('td', label), ...done.map((d, i) => cell('td', value(d.f, i))));
    return tr;
  }));
}

function cell(tag: 'td' | 'th', text: string): HTMLElement {
  const e = document.createElement(tag);
  e.textContent = text;
  return e;
}

function span(id: string, text: string): HTMLSpanElement {
  const e = document.createElement('span');
  e.id = id;
  e.textContent = text;
  return e;
}

// ---- the timeline ----

const LANES = ['MXU', 'VPU', 'DMA'] as const;
const LANE_COLOR: Record<(typeof LANES)[number], string> = { MXU: '#2b6cb0', VPU: '#2f855a', DMA: '#c05621' };
let samples: Sample[] = [];
let drawQueued = false;

function queueDraw(): void {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => { drawQueued = false; drawTimeline(); });
}

/** The clocks the timeline shows: [from, to), or null for the whole run (the zoom). */
let view: [number, number] | null = null;

/** The samples overlapping [from, to), merged into at most `n` buckets of whole samples. */
function buckets(n: number, from: number, to: number): Sample[] {
  const shown = samples.filter((b) => b.clock + b.clocks > from && b.clock < to);
  const per = Math.max(1, Math.ceil(shown.length / n));
  const out: Sample[] = [];
  for (let i = 0; i < shown.length; i += per) {
    const part = shown.slice(i, i + per);
    out.push(part.reduce((a, b) => ({ clock: a.clock, clocks: a.clocks + b.clocks, mxu: a.mxu + b.mxu, vpu: a.vpu + b.vpu, dma: a.dma + b.dma, fn: b.fn })));
  }
  return out;
}

function hue(name: string): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
  return h;
}

/** A round step (1, 2 or 5 × 10^k clocks) giving about `n` ticks over `span`. */
function tickStep(span: number, n: number): number {
  const raw = span / n, p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

/** A clock count short: 1.5M, 250k, 800. */
const shortClocks = (c: number) => (c >= 1e6 ? `${+(c / 1e6).toFixed(3)}M` : c >= 1e3 ? `${+(c / 1e3).toFixed(3)}k` : String(c));

const SVG_NS = 'http://www.w3.org/2000/svg';
function svgEl(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

const LABEL_W = 44, LANE_H = 26, GAP = 6;

function drawTimeline(): void {
  const svg = $('timeline') as unknown as SVGSVGElement;
  const width = svg.clientWidth || 900, el = svgEl;
  const runEnd = samples.length ? samples[samples.length - 1].clock + samples[samples.length - 1].clocks : 1;
  const [from, to] = view ?? [0, runEnd];
  const bs = buckets(Math.max(1, width - LABEL_W), from, to);
  const plotW = width - LABEL_W - 4;
  const x = (c: number) => LABEL_W + (plotW * (Math.min(Math.max(c, from), to) - from)) / (to - from);
  const children: Element[] = [];
  // The PERF_CTRL windows above the lanes: each its exact length, ending within the sample it closed in.
  const markY = 0, lanesY = 18;
  for (const w of samples) {
    if (!w.window) continue;
    const end = w.clock + w.clocks, start = end - w.window.cycles;
    if (end <= from || start >= to) continue;
    const g = el('g', { 'data-window': w.window.label });
    g.append(el('rect', { x: x(start), y: markY + 2, width: Math.max(1, x(end) - x(start)), height: 12, fill: '#e9d8fd', stroke: '#6b46c1', 'stroke-width': 0.5 }));
    g.append(el('title', {}, `${w.window.label}: PERF_CTRL window of ${w.window.cycles.toLocaleString('en-US')} clocks, closed between clocks ${w.clock.toLocaleString('en-US')} and ${end.toLocaleString('en-US')} (one sample)`));
    if (x(end) - x(start) > 7 * w.window.label.length) g.append(el('text', { x: x(start) + 3, y: markY + 12 }, w.window.label));
    children.push(g);
  }
  LANES.forEach((lane, i) => {
    const y = lanesY + i * (LANE_H + GAP);
    const key = lane.toLowerCase() as 'mxu' | 'vpu' | 'dma';
    // data-busy: the unit's busy clocks over the whole run (the TPU's whole-run counter), whatever the zoom.
    const g = el('g', { 'data-lane': lane, 'data-busy': samples.reduce((t, b) => t + b[key], 0) });
    g.append(el('text', { x: 0, y: y + 17 }, lane), el('rect', { x: LABEL_W, y, width: plotW, height: LANE_H, fill: '#f0f2f5' }));
    for (const b of bs) {
      if (!b[key]) continue;
      g.append(el('rect', { x: x(b.clock), y, width: Math.max(0.5, x(b.clock + b.clocks) - x(b.clock)), height: LANE_H, fill: LANE_COLOR[lane], 'fill-opacity': (b[key] / b.clocks).toFixed(3) }));
    }
    children.push(g);
  });
  // The CPU's function: runs of buckets that ended in the same function.
  const y = lanesY + LANES.length * (LANE_H + GAP);
  const cpu = el('g', { 'data-lane': 'CPU' });
  cpu.append(el('text', { x: 0, y: y + 17 }, 'CPU'));
  for (let i = 0; i < bs.length;) {
    let j = i;
    while (j + 1 < bs.length && bs[j + 1].fn === bs[i].fn) j++;
    const x0 = x(bs[i].clock), x1 = x(bs[j].clock + bs[j].clocks);
    const rect = el('rect', { x: x0, y, width: Math.max(0.5, x1 - x0), height: LANE_H, fill: `hsl(${hue(bs[i].fn)} 55% 75%)` });
    rect.append(el('title', {}, bs[i].fn || '(no symbol)'));
    cpu.append(rect);
    if (x1 - x0 > 8 * bs[i].fn.length) cpu.append(el('text', { x: x0 + 3, y: y + 17 }, bs[i].fn));
    i = j + 1;
  }
  children.push(cpu);
  // The clock axis: round ticks over the shown range.
  const axisY = y + LANE_H + 4;
  const axis = el('g', { id: 'timeline-axis' });
  axis.append(el('line', { x1: LABEL_W, x2: LABEL_W + plotW, y1: axisY, y2: axisY, stroke: '#4a5568' }));
  const step = tickStep(Math.max(1, to - from), 8);
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) {
    axis.append(el('line', { x1: x(t), x2: x(t), y1: axisY, y2: axisY + 4, stroke: '#4a5568' }), el('text', { x: x(t), y: axisY + 15, 'text-anchor': 'middle' }, shortClocks(t)));
  }
  axis.append(el('text', { x: LABEL_W + plotW, y: axisY + 28, 'text-anchor': 'end' }, `clock (${view ? `zoomed: ${from.toLocaleString('en-US')} … ${to.toLocaleString('en-US')}; double-click for the whole run` : 'wheel to zoom'})`));
  children.push(axis);
  // The CPU lane's legend: the functions it spent the most sampled clocks in (over the whole run).
  const byFn = new Map<string, number>();
  for (const b of samples) byFn.set(b.fn, (byFn.get(b.fn) ?? 0) + b.clocks);
  let lx = LABEL_W;
  const legendY = axisY + 34;
  for (const [fn, clocks] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
    const label = `${fn || '(no symbol)'} ${((100 * clocks) / runEnd).toFixed(0)}%`;
    children.push(el('rect', { x: lx, y: legendY, width: 10, height: 10, fill: `hsl(${hue(fn)} 55% 75%)` }), el('text', { x: lx + 14, y: legendY + 9 }, label));
    lx += 24 + 7 * label.length;
  }
  svg.setAttribute('height', String(legendY + 16));
  svg.dataset.samples = String(samples.length);
  svg.dataset.view = `${from} ${to}`;
  svg.replaceChildren(...children);
}

/** Wheel over the timeline zooms around the pointer's clock; a double-click shows the whole run again. */
function wireZoom(): void {
  const svg = $('timeline') as unknown as SVGSVGElement;
  svg.addEventListener('wheel', (e) => {
    if (!samples.length) return;
    e.preventDefault();
    const runEnd = samples[samples.length - 1].clock + samples[samples.length - 1].clocks;
    const [from, to] = view ?? [0, runEnd];
    const plotW = (svg.clientWidth || 900) - LABEL_W - 4;
    const at = from + ((to - from) * Math.min(Math.max(e.offsetX - LABEL_W, 0), plotW)) / plotW;
    const f = e.deltaY < 0 ? 0.5 : 2;
    // No narrower than one sample, no wider than the run.
    const span = Math.min(runEnd, Math.max(samples[0].clocks, (to - from) * f));
    const lo = Math.max(0, Math.min(runEnd - span, at - (at - from) * (span / (to - from))));
    view = span >= runEnd ? null : [Math.round(lo), Math.round(lo + span)];
    queueDraw();
  }, { passive: false });
  svg.addEventListener('dblclick', () => { view = null; queueDraw(); });
}

worker.onmessage = (e: MessageEvent<FromWorker>) => {
  const msg = e.data;
  switch (msg.type) {
    case 'state': render(msg.snapshot); break;
    case 'samples':
      if (msg.reset) { samples = []; view = null; }
      samples.push(...msg.samples);
      queueDraw();
      break;
    case 'demo': showDemo(msg.text, msg.figures); break;
    case 'error':
      showError(msg.message);
      demoWaiter?.reject(new Error(msg.message));
      demoWaiter = null;
      break;
  }
};

// ---- the controls ----

function wire(): void {
  const boards = $('board') as HTMLSelectElement;
  boards.append(...BOARDS.map((b) => new Option(b, b)));
  boards.onchange = () => {
    fillPrograms(null);
    editor.showBoard(board());
    void loadBundled(BUNDLED[board()][0]).catch((e) => showError((e as Error).message));
  };
  fillPrograms(null);
  const program = $('program') as HTMLSelectElement;
  program.onchange = () => {
    if (program.value === OWN) return;
    if (program.value === 'demo') void runDemo(($('problem') as HTMLInputElement).value).catch((e) => showError((e as Error).message));
    else void loadBundled(program.value).catch((e) => showError((e as Error).message));
  };
  ($('elf-file') as HTMLInputElement).onchange = async (e) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    if (!file) return;
    // The command line's limit, checked before the file is read.
    if (file.size > MAX_PROGRAM_BYTES) { showError(programTooBig(file.name, file.size)); return; }
    showError(null);
    fillPrograms(file.name);
    program.value = OWN;
    const bytes = await file.arrayBuffer();
    send({ type: 'load', name: file.name, bytes, board: board() }, [bytes]);
  };
  $('ladder-run').onclick = () => {
    void runLadder(($('problem') as HTMLInputElement).value).catch((err) => showError((err as Error).message));
  };
  $('demo-form').onsubmit = (e) => {
    e.preventDefault();
    const problem = ($('problem') as HTMLInputElement).value;
    history.replaceState(null, '', `#problem=${problem}`);
    void runDemo(problem).catch((err) => showError((err as Error).message));
  };
  for (const type of ['run', 'pause', 'step', 'next'] as const) $(type).onclick = () => { showError(null); send({ type }); };
  $('disassembly').onclick = (e) => {
    const addr = (e.target as HTMLElement).closest<HTMLElement>('[data-addr]')?.dataset.addr;
    if (addr !== undefined) send({ type: 'break', addr: Number(addr) });
  };
  ($('functions') as HTMLSelectElement).onchange = (e) => {
    const v = (e.target as HTMLSelectElement).value;
    send({ type: 'disas', addr: v === '' ? null : Number(v) });
  };
  ($('memory-addr') as HTMLInputElement).onchange = (e) => {
    const v = Number((e.target as HTMLInputElement).value.trim());
    if (Number.isFinite(v)) send({ type: 'memory', addr: v });
    else showError(`memory address "${(e.target as HTMLInputElement).value}" is not a number (e.g. 0x40000000)`);
  };
}

wire();
wireZoom();
// A kernel built in the editor runs as your own ELF would, on the chosen board.
const editor = setupEditor(board, (name, bytes) => {
  showError(null);
  fillPrograms(name);
  ($('program') as HTMLSelectElement).value = OWN;
  send({ type: 'load', name, bytes, board: board(), run: true }, [bytes]);
});
start().catch((e) => showError((e as Error).message));
drawCharts().catch((e) => showError(`the study's charts: ${(e as Error).message}`));
// A new #problem= (typed in the address bar, or a link) starts a new demo; the page's own form only replaces the URL.
window.addEventListener('hashchange', () => { start().catch((e) => showError((e as Error).message)); });

/** The demo with the problem `#problem=` names, else fib.elf; a problem that is not valid percent-encoding is said so, and fib.elf loads. */
async function start(): Promise<void> {
  const problem = /^#problem=(.+)$/.exec(location.hash);
  if (!problem) return loadBundled(BUNDLED[board()][0]);
  let text: string;
  try {
    text = decodeURIComponent(problem[1]);
  } catch {
    await loadBundled('fib');
    showError(`#problem=${problem[1]} is not valid percent-encoding (e.g. #problem=123%2B456 or #problem=123+456)`);
    return;
  }
  return runDemo(text);
}
