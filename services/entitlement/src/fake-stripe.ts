// A loopback HTTP server answering Stripe's REST shapes, for tests that run the real `stripe` SDK
// (this service's and end-to-end ones): subscriptions, prices, Checkout Sessions and customer
// portal sessions. Not used in production.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeBehaviour =
  | { kind: "status"; status: string }
  /** Answers after `delayMs` (to go past a client timeout). */
  | { kind: "slow"; status: string; delayMs: number }
  | { kind: "error"; httpStatus: number };

export interface FakeCheckoutSession {
  id: string;
  object: "checkout.session";
  mode: string;
  url: string;
  status: "open" | "complete" | "expired";
  payment_status: "unpaid" | "paid";
  success_url: string;
  cancel_url: string;
  metadata: Record<string, string>;
  subscription: string | null;
  customer: string | null;
  /** The price bought (line_items[0][price]); Stripe keeps it in line_items. */
  price: string;
}

export interface FakeStripe {
  url: string;
  /** Checkout Sessions created, by id. */
  sessions: Map<string, FakeCheckoutSession>;
  /** Adds a recurring price. */
  setPrice(id: string, unitAmount: number, currency?: string, interval?: string): void;
  /** The buyer pays: the session completes with a new active subscription and customer. */
  pay(sessionId: string): FakeCheckoutSession;
  /** Portal sessions created: customer -> return URL. */
  portals: Map<string, string>;
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

  const sessions = new Map<string, FakeCheckoutSession>();
  const prices = new Map<string, { unit_amount: number; currency: string; interval: string }>();
  const portals = new Map<string, string>();
  let counter = 0;
  const next = () => String(++counter).padStart(8, "0");
  let baseUrl = "";

  /** Everything but GET /v1/subscriptions/:id; false when the URL is not one of these. */
  const checkoutApi = (req: IncomingMessage, res: ServerResponse, form: URLSearchParams): boolean => {
    const url = req.url ?? "";
    const missing = (what: string, id: string) =>
      send(res, 404, { error: { type: "invalid_request_error", code: "resource_missing", message: `No such ${what}: '${id}'` } });
    let m: RegExpExecArray | null;
    if (req.method === "GET" && (m = /^\/v1\/prices\/([^/?]+)$/.exec(url))) {
      const p = prices.get(decodeURIComponent(m[1]));
      if (!p) return (missing("price", m[1]), true);
      send(res, 200, { id: m[1], object: "price", active: true, type: "recurring", unit_amount: p.unit_amount, currency: p.currency, recurring: { interval: p.interval, interval_count: 1 } });
      return true;
    }
    if (req.method === "POST" && url === "/v1/checkout/sessions") {
      const price = form.get("line_items[0][price]") ?? "";
      if (!prices.has(price)) return (missing("price", price), true);
      const id = `cs_test_${next()}`;
      const metadata: Record<string, string> = {};
      for (const [k, v] of form) {
        const mm = /^metadata\[(.+)\]$/.exec(k);
        if (mm) metadata[mm[1]] = v;
      }
      const session: FakeCheckoutSession = {
        id, object: "checkout.session", mode: form.get("mode") ?? "", url: `${baseUrl}/pay/${id}`, status: "open", payment_status: "unpaid",
        success_url: form.get("success_url") ?? "", cancel_url: form.get("cancel_url") ?? "", metadata, subscription: null, customer: null, price,
      };
      sessions.set(id, session);
      send(res, 200, session);
      return true;
    }
    if (req.method === "GET" && (m = /^\/v1\/checkout\/sessions\/([^/?]+)$/.exec(url))) {
      const session = sessions.get(decodeURIComponent(m[1]));
      if (!session) return (missing("checkout.session", m[1]), true);
      send(res, 200, session);
      return true;
    }
    if (req.method === "POST" && url === "/v1/billing_portal/sessions") {
      const customer = form.get("customer") ?? "";
      portals.set(customer, form.get("return_url") ?? "");
      send(res, 200, { id: `bps_${next()}`, object: "billing_portal.session", customer, url: `${baseUrl}/portal/${customer}` });
      return true;
    }
    return false;
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString("utf8")));
    req.on("end", () => answer(req, res, new URLSearchParams(raw)));
  });
  const answer = (req: IncomingMessage, res: ServerResponse, form: URLSearchParams) => {
    if (req.url?.startsWith("/v1/") && !/^\/v1\/subscriptions\//.test(req.url)) {
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        return send(res, 401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
      }
      if (failAll) return send(res, 500, { error: { type: "api_error", message: "internal" } });
      if (checkoutApi(req, res, form)) return;
    }
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
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;

  return {
    url: baseUrl,
    requests,
    sessions,
    portals,
    setPrice(id, unitAmount, currency = "usd", interval = "month") {
      prices.set(id, { unit_amount: unitAmount, currency, interval });
    },
    pay(sessionId) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no fake checkout session ${sessionId}`);
      if (session.status !== "complete") {
        const n = next();
        Object.assign(session, { status: "complete", payment_status: "paid", subscription: `sub_fake${n}`, customer: `cus_fake${n}` });
        subs.set(session.subscription!, { kind: "status", status: "active" });
      }
      return { ...session };
    },
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
