// How far V8 lets the old generation grow past what survived the last full collection before it
// collects again. V8 picks a factor of up to 4x by itself; under load, with ~36 MB live, the
// embedded gateway then sat at 250 to 300 MB of RSS, most of it garbage awaiting collection
// (measured: RSS 190-300 MB by default, 150-215 MB at 100 %, for about 10 % more CPU on NWP
// batches and none measurable on single determinations). The nwp service and a gateway whose
// services are all remote default to V8's own (services/nwp/src/main.ts, gateway/src/config.ts):
// no RSS target applies there, and the bound cost their batches 8 to 25 % more CPU. V8 reads
// this factor at every collection, so setting it at start takes effect.
import v8 from "node:v8";
import { makeValidator } from "envalid";

export const DEFAULT_HEAP_GROWING_PERCENT = 100;

/** HEAP_GROWING_PERCENT: a whole number 0 to 300; 0 leaves V8's own heuristics. */
export const heapGrowingPercent = makeValidator<number>((input) => {
  const n = Number(input);
  if (!/^\d+$/.test(String(input).trim()) || n > 300) throw new Error("must be a whole number from 0 (V8's own heuristics) to 300");
  return n;
});

export function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
