// One way to send requests to either deployment, so a suite can run unchanged against the
// embedded gateway (inject) and the distributed one (real HTTP to real processes).
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { EntitlementService } from "@permits/proto/entitlement/v1/entitlement";
import type { ServiceClients } from "@permits/gateway";
import { startEmbedded } from "./embedded.js";
import { sendToken } from "@permits/rpc";
import { generousTiersFile, startDistributed, TEST_OPERATOR_TOKEN } from "./processes.js";
import { openApiCheck } from "./openapi-check.js";

export interface TargetResponse {
  statusCode: number;
  headers: Record<string, string | undefined>;
  body: string;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RequestOptions {
  method: "GET" | "HEAD" | "POST" | "DELETE" | "PUT";
  url: string;
  payload?: string;
  headers?: Record<string, string>;
}

export interface Target {
  name: "embedded" | "distributed";
  request(o: RequestOptions): Promise<TargetResponse>;
  entitlement: ServiceClients["entitlement"];
  close(): Promise<void>;
}

export const DEPLOYMENTS = ["embedded", "distributed"] as const;

/** The evaluation date every suite runs on, so answers that turn on permit expiry never drift. */
export const EVALUATION_DATE = "2026-11-24";

/** A deployment whose limits never bind (for suites that are not about limits), on EVALUATION_DATE. */
export async function startTarget(name: (typeof DEPLOYMENTS)[number], env: Record<string, string> = {}): Promise<Target> {
  const fullEnv = { TIERS_FILE: generousTiersFile(), EVALUATION_DATE, ...env };
  const target = await startUnchecked(name, fullEnv);
  // Every response a suite receives must be one the OpenAPI document declares.
  const check = openApiCheck((await target.request({ method: "GET", url: "/api/openapi" })).json());
  return {
    ...target,
    async request(o) {
      const res = await target.request(o);
      const problems = check.problems(o.method, o.url, res.statusCode, res.headers["content-type"], res.body);
      if (problems.length > 0) throw new Error(`response outside the OpenAPI document:\n  ${problems.join("\n  ")}\nbody: ${res.body.slice(0, 300)}`);
      return res;
    },
  };
}

async function startUnchecked(name: (typeof DEPLOYMENTS)[number], fullEnv: Record<string, string>): Promise<Target> {
  if (name === "embedded") {
    const gw = await startEmbedded(fullEnv, { checkOpenApi: false }); // startTarget checks every response itself
    return {
      name,
      entitlement: gw.clients.entitlement,
      close: gw.close,
      async request(o) {
        const res = await gw.app.inject({ method: o.method, url: o.url, payload: o.payload, headers: o.headers });
        return { statusCode: res.statusCode, headers: res.headers as Record<string, string | undefined>, body: res.body, json: () => JSON.parse(res.body) };
      },
    };
  }
  const d = await startDistributed(fullEnv);
  return {
    name,
    entitlement: createClient(EntitlementService, createConnectTransport({ baseUrl: d.serviceUrls.ENTITLEMENT_URL, httpVersion: "2", interceptors: [sendToken(TEST_OPERATOR_TOKEN)] })),
    close: d.close,
    async request(o) {
      // Redirects are answers to check (checkout answers 303), not to follow.
      const res = await fetch(d.baseUrl + o.url, { method: o.method, body: o.payload, headers: o.headers, redirect: "manual" });
      const body = await res.text();
      return { statusCode: res.status, headers: Object.fromEntries(res.headers), body, json: () => JSON.parse(body) };
    },
  };
}
