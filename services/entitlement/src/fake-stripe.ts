// A loopback HTTP server answering Stripe's subscription-retrieve REST shape, for tests that run
// the real `stripe` SDK (this service's and end-to-end ones). Not used in production.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeBehaviour =
  | { kind: "status"; status: string }
  /** Answers after `delayMs` (to go past a client timeout). */
  | { kind: "slow"; status: string; delayMs: number }
  | { kind: "error"; httpStatus: number };

export interface FakeStripe {
  url: string;
  /** Requests received per subscription id. */
  requests: Map<string, number>;
  set(subscriptionId: string, behaviour: FakeBehaviour | string): void;
  /** Every request answers 500 while set. */
  failAll(on: boolean): void;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", "request-id": "req_fake" });
  res.end(JSON.stringify(body));
}

export async function startFakeStripe(apiKey: string): Promise<FakeStripe> {
  const subs = new Map<string, FakeBehaviour>();
  const requests = new Map<string, number>();
  let failAll = false;
  const timers = new Set<NodeJS.Timeout>();

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const m = /^\/v1\/subscriptions\/([^/?]+)$/.exec(req.url ?? "");
    if (req.method !== "GET" || !m) {
      return send(res, 404, { error: { type: "invalid_request_error", message: "Unrecognized request URL" } });
    }
    const id = decodeURIComponent(m[1]);
    requests.set(id, (requests.get(id) ?? 0) + 1);
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return send(res, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
    }
    if (failAll) return send(res, 500, { error: { type: "api_error", message: "internal" } });
    const b = subs.get(id);
    if (!b) {
      return send(res, 404, {
        error: { type: "invalid_request_error", code: "resource_missing", param: "id", message: `No such subscription: '${id}'` },
      });
    }
    const subscription = (status: string) => ({ id, object: "subscription", status, livemode: false, items: { object: "list", data: [] } });
    if (b.kind === "error") return send(res, b.httpStatus, { error: { type: "api_error", message: "server error" } });
    if (b.kind === "slow") {
      const t = setTimeout(() => {
        timers.delete(t);
        send(res, 200, subscription(b.status));
      }, b.delayMs);
      timers.add(t);
      return;
    }
    send(res, 200, subscription(b.status));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    set(id, behaviour) {
      subs.set(id, typeof behaviour === "string" ? { kind: "status", status: behaviour } : behaviour);
    },
    failAll(on) {
      failAll = on;
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback URL where nothing listens: a port that was bound, then released. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
