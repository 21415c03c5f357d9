// A TCP relay on a fixed loopback port that can be taken off the network and put back: while
// off, nothing listens on its port (connects are refused, ECONNREFUSED), as with a provider that
// is unreachable; while on, bytes pass both ways to the target.
import net from "node:net";

export interface Switch {
  url: string;
  /** Closes the listener and drops open connections (kept-alive ones too). */
  off(): Promise<void>;
  on(): Promise<void>;
  close(): Promise<void>;
}

export async function startSwitch(targetPort: number): Promise<Switch> {
  const conns = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, "127.0.0.1");
    for (const s of [client, upstream]) {
      conns.add(s);
      s.once("close", () => conns.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
    client.once("close", () => upstream.destroy());
    upstream.once("close", () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  await listen(0);
  const { port } = server.address() as net.AddressInfo;
  let listening = true;
  const off = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of conns) s.destroy();
    await closed;
  };
  return {
    url: `http://127.0.0.1:${port}`,
    off,
    on: async () => {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    close: off,
  };
}
