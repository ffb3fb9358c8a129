// The playground's page: loads a bundled firmware, your own ELF or the demo
// into the emulator's worker (web/worker.ts), sends it run / pause / step /
// step over / breakpoint commands, and draws what it posts back: registers,
// disassembly, console, memory, the TPU's units and report, and the timeline.
// `#problem=1234+5678` in the URL opens the demo with that problem and runs it.

import { MAX_PROGRAM_BYTES, programTooBig } from '../emu/elf.ts';
import { drawCharts } from './charts.ts';
import { setupEditor } from './editor.ts';
import { BOARDS, BUNDLED, DEMO_ELF, type BoardName, DEMO_MODEL, type DemoFigures, type FromWorker, type Sample, type Snapshot, type ToWorker } from './protocol.ts';

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
  if (b === 'picotpu') program.append(new Option('demo (model.elf + adder.ptm)', 'demo'));
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

async function runDemo(problem: string): Promise<void> {
  showError(null);
  $('demo-headline').hidden = true;
  $('demo-report').textContent = '';
  // The demo's model runs on picotpu's TPU.
  if (board() !== 'picotpu') { ($('board') as HTMLSelectElement).value = 'picotpu'; fillPrograms(null); }
  ($('program') as HTMLSelectElement).value = 'demo';
  const [elf, model] = await Promise.all([fetchBytes(`${DEMO_ELF}.elf`), fetchBytes(DEMO_MODEL)]);
  send({ type: 'demo', problem, elf, model }, [elf, model]);
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

/** The samples merged into at most `n` buckets of whole samples. */
function buckets(n: number): Sample[] {
  const per = Math.max(1, Math.ceil(samples.length / n));
  const out: Sample[] = [];
  for (let i = 0; i < samples.length; i += per) {
    const part = samples.slice(i, i + per);
    out.push(part.reduce((a, b) => ({ clock: a.clock, clocks: a.clocks + b.clocks, mxu: a.mxu + b.mxu, vpu: a.vpu + b.vpu, dma: a.dma + b.dma, fn: b.fn })));
  }
  return out;
}

function hue(name: string): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
  return h;
}

function drawTimeline(): void {
  const svg = $('timeline') as unknown as SVGSVGElement;
  const width = svg.clientWidth || 900, labelW = 44, laneH = 26, gap = 6;
  const ns = 'http://www.w3.org/2000/svg';
  const el = (tag: string, attrs: Record<string, string | number>, text?: string) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const bs = buckets(Math.max(1, width - labelW));
  const end = bs.length ? bs[bs.length - 1].clock + bs[bs.length - 1].clocks : 1;
  const x = (c: number) => labelW + ((width - labelW - 4) * c) / end;
  const children: Element[] = [];
  LANES.forEach((lane, i) => {
    const y = i * (laneH + gap);
    const key = lane.toLowerCase() as 'mxu' | 'vpu' | 'dma';
    const g = el('g', { 'data-lane': lane, 'data-busy': bs.reduce((t, b) => t + b[key], 0) });
    g.append(el('text', { x: 0, y: y + 17 }, lane), el('rect', { x: labelW, y, width: width - labelW - 4, height: laneH, fill: '#f0f2f5' }));
    for (const b of bs) {
      if (!b[key]) continue;
      g.append(el('rect', { x: x(b.clock), y, width: Math.max(0.5, x(b.clock + b.clocks) - x(b.clock)), height: laneH, fill: LANE_COLOR[lane], 'fill-opacity': (b[key] / b.clocks).toFixed(3) }));
    }
    children.push(g);
  });
  // The CPU's function: runs of buckets that ended in the same function.
  const y = LANES.length * (laneH + gap);
  const cpu = el('g', { 'data-lane': 'CPU' });
  cpu.append(el('text', { x: 0, y: y + 17 }, 'CPU'));
  for (let i = 0; i < bs.length;) {
    let j = i;
    while (j + 1 < bs.length && bs[j + 1].fn === bs[i].fn) j++;
    const x0 = x(bs[i].clock), x1 = x(bs[j].clock + bs[j].clocks);
    const rect = el('rect', { x: x0, y, width: Math.max(0.5, x1 - x0), height: laneH, fill: `hsl(${hue(bs[i].fn)} 55% 75%)` });
    rect.append(el('title', {}, bs[i].fn || '(no symbol)'));
    cpu.append(rect);
    if (x1 - x0 > 8 * bs[i].fn.length) cpu.append(el('text', { x: x0 + 3, y: y + 17 }, bs[i].fn));
    i = j + 1;
  }
  children.push(cpu, el('text', { x: labelW, y: y + laneH + 16 }, `0 … ${end.toLocaleString('en-US')} clocks`));
  // The CPU lane's legend: the functions it spent the most sampled clocks in.
  const byFn = new Map<string, number>();
  for (const b of samples) byFn.set(b.fn, (byFn.get(b.fn) ?? 0) + b.clocks);
  let lx = labelW;
  for (const [fn, clocks] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
    const label = `${fn || '(no symbol)'} ${((100 * clocks) / end).toFixed(0)}%`;
    children.push(el('rect', { x: lx, y: y + laneH + 26, width: 10, height: 10, fill: `hsl(${hue(fn)} 55% 75%)` }), el('text', { x: lx + 14, y: y + laneH + 35 }, label));
    lx += 24 + 7 * label.length;
  }
  svg.setAttribute('height', String(y + laneH + 42));
  svg.dataset.samples = String(samples.length);
  svg.replaceChildren(...children);
}

worker.onmessage = (e: MessageEvent<FromWorker>) => {
  const msg = e.data;
  switch (msg.type) {
    case 'state': render(msg.snapshot); break;
    case 'samples':
      if (msg.reset) samples = [];
      samples.push(...msg.samples);
      queueDraw();
      break;
    case 'demo': showDemo(msg.text, msg.figures); break;
    case 'error': showError(msg.message); break;
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
