// How far V8 lets the old generation grow past what survived the last full collection before it
// collects again. By default (0) V8 decides, growing by up to 4x. A lower factor trades CPU for
// memory: 100 kept the embedded gateway at 150 to 215 MB of RSS under load instead of 190 to 300,
// for about 10 % more CPU on NWP batches; with the start scripts' larger young generation
// (--max-semi-space-size=64) it cost the distributed NWP batch 12 to 15 % more CPU (nwp and
// gateway processes) for 20 to 70 MB less RSS, and made no difference embedded, so the default
// leaves it to V8. V8 reads this factor at every collection, so setting it at start takes effect.
import v8 from "node:v8";
import { makeValidator } from "envalid";

export const DEFAULT_HEAP_GROWING_PERCENT = 0;

/** HEAP_GROWING_PERCENT: a whole number 0 to 300; 0 leaves V8's own heuristics. */
export const heapGrowingPercent = makeValidator<number>((input) => {
  const n = Number(input);
  if (!/^\d+$/.test(String(input).trim()) || n > 300) throw new Error("must be a whole number from 0 (V8's own heuristics) to 300");
  return n;
});

export function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
