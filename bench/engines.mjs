// The engines alone, in this process on one core (the JS thread): stormwater and NWP
// determinations per second through the service implementation both deployments call (engine +
// response message), and through the pure engine function alone. Prints one JSON line per run.
//   node bench/engines.mjs <seconds per run>
import { performance } from "node:perf_hooks";

// The evaluation date of the engine runs.
const TODAY = new Date().toISOString().slice(0, 10);
import { create } from "@bufbuild/protobuf";
import { DetermineRequestSchema as SwDetermineRequestSchema } from "@permits/proto/stormwater/v1/stormwater";
import { DetermineRequestSchema as NwpDetermineRequestSchema } from "@permits/proto/nwp/v1/nwp";
import { createStormwaterService, determineStormwater, loadDataset as loadStormwater } from "@permits/stormwater";
import { createNwpService, determine as determineNwp, loadDataset as loadNwp } from "@permits/nwp";
import { PROJECTS, SITES } from "./requests.mjs";

const seconds = Number(process.argv[2] ?? 2);

/** The public SiteInput JSON as the gateway hands it on: acres is the alias of disturbedAcres, null = unset. */
function siteInit(s) {
  const out = {};
  for (const [k, v] of Object.entries(s)) if (v !== null) out[k === "acres" ? "disturbedAcres" : k] = v;
  return out;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Calls fn(inputs[i % n]) back to back for `seconds`, timing each call. */
function measure(name, route, inputs, fn) {
  // Warm up the JIT on every input before measuring.
  const warmEnd = performance.now() + Math.min(500, seconds * 250);
  for (let i = 0; performance.now() < warmEnd; i++) fn(inputs[i % inputs.length]);
  const lat = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  let n = 0;
  let t = start;
  while (t < end) {
    fn(inputs[n % inputs.length]);
    const t2 = performance.now();
    lat.push(t2 - t);
    t = t2;
    n++;
  }
  const elapsed = (t - start) / 1000;
  lat.sort((a, b) => a - b);
  const rss = process.resourceUsage().maxRSS / 1024; // kilobytes -> MB
  return { name, deployment: "engine", route, load: "saturation", rps: n / elapsed, p50_ms: percentile(lat, 50), p97_5_ms: percentile(lat, 97.5), p99_ms: percentile(lat, 99), errors: 0, rss_mb: rss };
}

const ctx = undefined; // the handlers do not read the context
const swDataset = loadStormwater();
const sw = createStormwaterService(swDataset, () => TODAY);
const nwpDataset = loadNwp();
const nwp = createNwpService(nwpDataset, () => TODAY);

const swRequests = SITES.map((s) => create(SwDetermineRequestSchema, { site: siteInit(s) }));
const nwpRequests = PROJECTS.map((p) => create(NwpDetermineRequestSchema, { project: p }));

const runs = [
  () => measure("engine stormwater (service impl)", "StormwaterService.Determine", swRequests, (r) => sw.determine(r, ctx)),
  () => measure("engine stormwater (pure engine)", "determineStormwater()", swRequests, (r) => determineStormwater(swDataset, r.site, TODAY)),
  () => measure("engine nwp (service impl)", "NwpService.Determine", nwpRequests, (r) => nwp.determine(r, ctx)),
  () => measure("engine nwp (pure engine)", "nwp determine()", nwpRequests, (r) => determineNwp(nwpDataset, r.project, TODAY)),
];
for (const run of runs) process.stdout.write(JSON.stringify(run()) + "\n");
