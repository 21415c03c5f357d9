// A webhook receiver on 127.0.0.1 for tests: records every request and answers what the test says.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  /** 0: no answer at all (the connection is held until `release()` or close). */
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export interface Receiver {
  /** http://127.0.0.1:<port> */
  origin: string;
  received: Received[];
  /** What the next requests are answered; the default answers 200 "ok". */
  answer: (r: Received, n: number) => Answer;
  /** Drops the connections held by `status: 0` answers. */
  release(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { origin: "", received: [], answer: () => ({ status: 200, body: "ok" }), release: () => {}, close: async () => {} };
  const held = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = { path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      receiver.received.push(r);
      const a = receiver.answer(r, receiver.received.length);
      if (a.status === 0) return void held.add(res);
      res.writeHead(a.status, a.headers).end(a.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.release = () => {
    for (const res of held) res.socket?.destroy();
    held.clear();
  };
  receiver.close = () => {
    receiver.release();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

/** The three Standard Webhooks headers of a received request. */
export function webhookHeaders(r: Received): Record<string, string> {
  return { "webhook-id": String(r.headers["webhook-id"]), "webhook-timestamp": String(r.headers["webhook-timestamp"]), "webhook-signature": String(r.headers["webhook-signature"]) };
}
