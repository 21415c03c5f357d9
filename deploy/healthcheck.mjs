#!/usr/bin/env node
// Container health probe; no dependencies (Node global fetch).
//
//   node deploy/healthcheck.mjs <role>      role: gateway, or a service's name (gateway/src/services.ts)
//
// The role comes from argv[2], else $ROLE, else "gateway". The port is $PORT of the container
// (the probe runs inside it), defaulting to 8080 for the gateway.
// - gateway: GET /readyz must answer 200 (every service and Redis reachable).
// - services: gRPC health protocol as a Connect unary JSON call,
//   POST /grpc.health.v1.Health/Check {} -> 200 {"status":"SERVING"}. Every service is probed
//   alike, so the probe names none (loading the list of services would cost each probe ~80 ms of
//   CPU); compose's test checks each probe's role against its start:<role> script.
// Exit 0 when healthy, 1 otherwise; each attempt is bounded by a 2 s timeout.

const role = process.argv[2] ?? process.env.ROLE ?? "gateway";
const port = process.env.PORT ?? (role === "gateway" ? "8080" : "");
const base = `http://127.0.0.1:${port}`;
const TIMEOUT_MS = 2000;

function fail(msg) {
  console.error(`healthcheck(${role}): ${msg}`);
  process.exit(1);
}

if (!/^[a-z][a-z0-9-]*$/.test(role)) fail("unknown role");
if (!/^\d+$/.test(port)) fail("PORT is not set");

try {
  if (role === "gateway") {
    const res = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status !== 200) fail(`/readyz answered ${res.status}`);
  } else {
    const res = await fetch(`${base}/grpc.health.v1.Health/Check`, {
      method: "POST",
      headers: { "content-type": "application/json", "connect-protocol-version": "1" },
      body: "{}",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.status !== 200) fail(`Health/Check answered ${res.status}`);
    const body = await res.json();
    if (body?.status !== "SERVING") fail(`status ${JSON.stringify(body?.status)}`);
  }
} catch (err) {
  fail(err?.name === "TimeoutError" ? "timed out" : String(err?.message ?? err));
}
process.exit(0);
