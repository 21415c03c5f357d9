// The hostile-input suite: seeded fast-check requests against both deployments over real sockets.
// `npm test` runs a short fixed-seed form; `npm run fuzz` runs 10,000 per deployment on a fresh
// seed (FUZZ_REQUESTS and FUZZ_SEED override both), printing the table and any minimal failing request.
import { afterAll, describe, expect, it } from "vitest";
import { DEPLOYMENTS } from "./support/target.js";
import { fuzz, fuzzTable, startFuzzTarget, type FuzzRow } from "./fuzz/run.js";

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 500);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : process.env.FUZZ_REQUESTS !== undefined ? Date.now() % 2 ** 31 : 20261124;
const rows: FuzzRow[] = [];

afterAll(() => {
  if (rows.length) console.log(`\nfuzz: ${REQUESTS} requests per deployment, seed ${SEED} (FUZZ_SEED=${SEED} repeats it)\n${fuzzTable(rows)}\n`);
});

describe.each(DEPLOYMENTS)("%s deployment under hostile input", (name) => {
  it(`keeps the contract on every one of ${REQUESTS} seeded requests`, async () => {
    const target = await startFuzzTarget(name);
    try {
      const row = await fuzz(target, { requests: REQUESTS, seed: SEED });
      rows.push(row);
      expect(row.failure ?? "none").toBe("none");
      expect(row.violations).toBe(0);
      // The requests reach every layer: answers, validation, keys, routing, methods, body and header limits.
      expect(Object.keys(row.statuses)).toEqual(expect.arrayContaining(["200", "400", "401", "404", "405", "413", "431"]));
    } finally {
      await target.close();
    }
  }, 60_000 + REQUESTS * 30);
});
