// scripts/train.ts: one optimizer step on two workers, a checkpoint, a resumed
// step (the same model as two steps straight through), and the export — whose check holds the training forward pass to the
// golden model's logits (model/golden.ts, the firmware's arithmetic) bit for
// bit. The blob it writes must read back as the benchmark-shaped model.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readModel } from '../model/format.ts';

const train = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/train.ts', '--batch', '4', '--eval-every', '1', '--eval-size', '4',
    '--final-eval', '4', '--lr', '0.5', '--warmup', '1', '--export', 'last', '--ckpt', join(dir, 'ckpt'), '--out', join(dir, 'm.ptm'), ...args], { encoding: 'utf8' });

describe('scripts/train.ts', () => {
  it('trains, checkpoints, resumes and exports a model the golden model computes exactly', () => {
    const dir = mkdtempSync(join(tmpdir(), 'picotpu-train-'));
    const first = train(dir, '--steps', '1', '--workers', '2');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/step 1: loss/);
    const afterOne = readFileSync(join(dir, 'm.ptm'));
    const second = train(dir, '--steps', '2', '--workers', '2', '--resume');
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/resumed from .* at step 1/);
    expect(second.stdout).toMatch(/step 2: loss/);
    expect(second.stdout).toMatch(/wrote .*m\.ptm/); // only after the export check passed
    const model = readModel(readFileSync(join(dir, 'm.ptm')));
    expect(model.dims).toEqual({ d: 128, dFF: 512, heads: 4, layers: 4, vocab: 16, maxSeq: 128 });
    const info = JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8'));
    expect(info).toMatchObject({ seed: 1, steps: 2, workers: 2, heldOut: { problems: 4 } });
    // Deterministic: two steps straight through give the same model as one, a checkpoint and one more.
    const other = mkdtempSync(join(tmpdir(), 'picotpu-train-'));
    const straight = train(other, '--steps', '2', '--workers', '2');
    expect(straight.status, straight.stderr).toBe(0);
    const afterTwo = readFileSync(join(dir, 'm.ptm'));
    expect(Buffer.compare(readFileSync(join(other, 'm.ptm')), afterTwo)).toBe(0);
    expect(Buffer.compare(afterOne, afterTwo)).not.toBe(0); // (a step does change the int4 weights)
    // --export best (the default) writes the best evaluated checkpoint and says which.
    const best = train(other, '--steps', '2', '--workers', '2', '--export', 'best', '--resume');
    expect(best.status, best.stderr).toBe(0);
    const exported = JSON.parse(readFileSync(join(other, 'm.json'), 'utf8')).exportedStep;
    expect([1, 2]).toContain(exported);
    expect(Buffer.compare(readFileSync(join(other, 'm.ptm')), exported === 1 ? afterOne : afterTwo)).toBe(0);
  });
});
