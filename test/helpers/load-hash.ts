// A hash of what the loader puts into memory (the PT_LOAD segments: address,
// size and bytes), so that a measurement made on one build is recognised on a
// rebuild from another folder, whose debug information differs.
import { createHash } from 'node:crypto';
import { parseElf } from '../../emu/elf.ts';

export function loadHash(elf: Uint8Array): string {
  const h = createHash('sha256');
  for (const s of parseElf(elf).segments) {
    h.update(`${s.vaddr.toString(16)}:${s.memsz.toString(16)}:`);
    h.update(s.data);
  }
  return h.digest('hex');
}
