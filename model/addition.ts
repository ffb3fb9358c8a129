// The addition task the trained model solves (docs/addition.md): a + b with up
// to 31 decimal digits each, as a 64-token prompt and a 33-token answer.
//
// Both operands and the sum are written least-significant digit first and
// zero-padded to a fixed width, so that answer digit i always sits at the same
// distance from the prompt digits it depends on (a_i, b_i, a_{i−1}, b_{i−1})
// and from the answer digit before it, which carries the carry. Reversed
// answers are what makes addition learnable left to right.
//
//   prompt:  a0 a1 … a30  +  b0 b1 … b30  =        (31 + 1 + 31 + 1 = 64 tokens)
//   answer:  s0 s1 … s31  <end>                     (32 digits + the stop token)

import { mulberry32 } from './random.ts';

export const DIGITS = 31;
export const SUM_DIGITS = DIGITS + 1;
export const TOKEN = { PLUS: 10, EQUALS: 11, END: 12 } as const;
/** Digits 0..9 are tokens 0..9; the vocabulary is padded to a multiple of 8. */
export const VOCAB = 16;
export const PROMPT_LEN = 2 * DIGITS + 2; // 64
export const ANSWER_LEN = SUM_DIGITS + 1; // 33: the digits, then END
/** The seed's 64 + 64: positions in the model. */
export const MAX_SEQ = 128;
export const DECODE_STEPS = 64;

export interface Problem { a: string; b: string }

const DECIMAL = /^[0-9]{1,31}$/;

/** Parses "a+b" (each 1..31 decimal digits, spaces allowed around); null if it is not one. */
export function parseProblem(text: string): Problem | null {
  const m = /^\s*([0-9]+)\s*\+\s*([0-9]+)\s*$/.exec(text);
  if (!m || !DECIMAL.test(m[1]) || !DECIMAL.test(m[2])) return null;
  return { a: strip(m[1]), b: strip(m[2]) };
}

const strip = (s: string) => s.replace(/^0+(?=.)/, '');

/** The exact sum, as a decimal string without leading zeros. */
export const sumOf = (p: Problem): string => (BigInt(p.a) + BigInt(p.b)).toString();

/** The number's digits, least significant first, zero-padded to `width`. */
function reversedDigits(n: string, width: number): number[] {
  const out = new Array<number>(width).fill(0);
  for (let i = 0; i < n.length; i++) out[i] = n.charCodeAt(n.length - 1 - i) - 48;
  return out;
}

export function encodePrompt(p: Problem): number[] {
  return [...reversedDigits(p.a, DIGITS), TOKEN.PLUS, ...reversedDigits(p.b, DIGITS), TOKEN.EQUALS];
}

/** The answer tokens the model must produce: the sum's 32 digits reversed, then END. */
export function encodeAnswer(p: Problem): number[] {
  return [...reversedDigits(sumOf(p), SUM_DIGITS), TOKEN.END];
}

/**
 * The number the model wrote: digits up to the first non-digit, read back to
 * front; null if it wrote no digit, or anything other than END after them.
 */
export function decodeAnswer(tokens: number[]): string | null {
  let n = 0;
  while (n < tokens.length && tokens[n] <= 9) n++;
  if (n === 0 || (n < tokens.length && tokens[n] !== TOKEN.END)) return null;
  return strip(tokens.slice(0, n).reverse().join(''));
}

/** A random number of exactly `digits` digits (no leading zero unless it is one digit). */
function randomNumber(rnd: () => number, digits: number): string {
  let s = String(1 + Math.floor(rnd() * 9));
  for (let i = 1; i < digits; i++) s += String(Math.floor(rnd() * 10));
  return digits === 1 ? String(Math.floor(rnd() * 10)) : s;
}

/** Both operands with exactly 31 digits: the held-out evaluation's problems. */
export function fullWidthProblem(rnd: () => number): Problem {
  return { a: randomNumber(rnd, DIGITS), b: randomNumber(rnd, DIGITS) };
}

/**
 * A training problem: half with two 31-digit operands, half with lengths
 * uniform in 1..31 each, so that short numbers and their zero padding are
 * seen too.
 */
export function trainingProblem(rnd: () => number): Problem {
  if (rnd() < 0.5) return fullWidthProblem(rnd);
  const la = 1 + Math.floor(rnd() * DIGITS), lb = 1 + Math.floor(rnd() * DIGITS);
  return { a: randomNumber(rnd, la), b: randomNumber(rnd, lb) };
}

/** The seed of the held-out set; training uses others and skips these problems. */
export const HELD_OUT_SEED = 0x0ad0_2026;

/** The held-out problems: the first n full-width problems from HELD_OUT_SEED (a prefix of any longer set). */
export function heldOutProblems(n: number): Problem[] {
  return Array.from(heldOutStream(n));
}

/** The same problems one at a time, so a long evaluation holds none of them. */
export function* heldOutStream(n: number): Generator<Problem> {
  const rnd = mulberry32(HELD_OUT_SEED);
  for (let i = 0; i < n; i++) yield fullWidthProblem(rnd);
}

export const problemKey = (p: Problem) => `${p.a}+${p.b}`;
