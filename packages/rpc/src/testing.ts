// Test support for the transport tests (left out of the build): a server of the lean unary path
// alone that counts HTTP/2 streams, to tell a coalesced exchange from lone calls.
import http2 from "node:http2";
import type net from "node:net";
import type { Interceptor } from "@connectrpc/connect";
import type { HostedService, Logger } from "@permits/runtime";
import { leanUnary } from "./server/lean-unary.js";

export interface CountingServer {
  url: string;
  /** Streams opened so far. */
  streams(): number;
  close(): Promise<void>;
}

export async function countingLeanServer(services: HostedService[], interceptors: readonly Interceptor[], logger: Logger): Promise<CountingServer> {
  const server = http2.createServer();
  const handle = leanUnary(services, { logger, shutdownSignal: new AbortController().signal, interceptors });
  let streams = 0;
  const sessions = new Set<http2.Http2Session>();
  server.on("session", (s) => sessions.add(s));
  server.on("stream", (stream, headers) => {
    streams++;
    if (!handle(stream, headers)) stream.respond({ ":status": 404 }, { endStream: true });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    streams: () => streams,
    close: async () => {
      for (const s of sessions) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
