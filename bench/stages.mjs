// Where an NWP batch's work goes, stage by stage, in this one process with nothing else running:
// what each deployment does to the benchmark's batch of 100 projects apart from HTTP, sockets and
// the garbage collection that concurrency adds. Set beside a process's CPU per batch from
// `npm run bench`, the difference is the cost of serving it (HTTP, HTTP/2, GC under load).
//   node bench/stages.mjs [batches, default 300]
// Prints one JSON line: milliseconds per batch of each stage, and the sizes of the answer.
//   request     the body parsed and each project checked, as the gateway does (JSON.parse, parseProject)
//   request_pb  the DetermineBatchRequest built and encoded (distributed only)
//   engine      the nwp service's determineBatch: validation, the engine, the response messages
//   encode      the response encoded (nwp process, distributed only)
//   decode      the response decoded by the gateway's shared-parts decoder (distributed only)
//   json        the public JSON body written from the response (gateway)
import { performance } from "node:perf_hooks";
import { create, toBinary } from "@bufbuild/protobuf";
import { DetermineBatchRequestSchema, DetermineBatchResponseSchema } from "@permits/proto/nwp/v1/nwp";
import { createNwpService, loadDataset } from "@permits/nwp";
import { sharedPartsDecoder } from "@permits/rpc";
import { decidedItem, determinationsOf, parseProject, serializeBody } from "@permits/gateway";
import { batchOf100 } from "./requests.mjs";

const batches = Number(process.argv[2] ?? 300);
if (!Number.isInteger(batches) || batches < 1) throw new Error("batches must be a positive whole number");
const WARM_UP = Math.min(100, batches);

const nwp = createNwpService(loadDataset(), () => new Date().toISOString().slice(0, 10));
const decode = sharedPartsDecoder();
const body = JSON.stringify(batchOf100());

/** The body the batch route writes, less its meta (the same few hundred bytes for every batch). */
function publicJson(res) {
  const determinationOf = determinationsOf(res);
  return serializeBody({ data: res.items.map((it) => decidedItem(it, determinationOf)) });
}

const ms = { request: 0, request_pb: 0, engine: 0, encode: 0, decode: 0, json: 0 };
let wireBytes = 0;
let jsonBytes = 0;
for (let i = 0; i < WARM_UP + batches; i++) {
  const t0 = performance.now();
  const projects = JSON.parse(body).projects.map((p, index) => ({ index, project: parseProject(p) }));
  const t1 = performance.now();
  const req = create(DetermineBatchRequestSchema, { projects, shareLists: true });
  toBinary(DetermineBatchRequestSchema, req);
  const t2 = performance.now();
  const res = nwp.determineBatch(req);
  const t3 = performance.now();
  const wire = toBinary(DetermineBatchResponseSchema, res);
  const t4 = performance.now();
  const decoded = decode(DetermineBatchResponseSchema, wire);
  const t5 = performance.now();
  const json = publicJson(decoded);
  const t6 = performance.now();
  if (i < WARM_UP) continue;
  ms.request += t1 - t0;
  ms.request_pb += t2 - t1;
  ms.engine += t3 - t2;
  ms.encode += t4 - t3;
  ms.decode += t5 - t4;
  ms.json += t6 - t5;
  wireBytes = wire.length;
  jsonBytes = json.length;
}
const perBatch = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, Math.round((v / batches) * 1000) / 1000]));
console.log(JSON.stringify({ batches, ms_per_batch: perBatch, response_wire_bytes: wireBytes, response_json_bytes: jsonBytes }));
