// Who the client is, as an address nobody can forge: the rightmost address of the chain
// (the socket's peer, then X-Forwarded-For read right to left) that is not a trusted proxy.
// Each proxy appends the address it received the request from; only what a trusted proxy
// appended is believed, so a client writing X-Forwarded-For itself changes nothing.
//
// TRUST_PROXY is off (the socket's peer is the client), a comma-separated list of the proxies'
// addresses or CIDRs, or a hop count (the last N hops are proxies). `true` (trust every hop,
// so the leftmost address, which the client writes) is refused.
import proxyAddr from "@fastify/proxy-addr";

/** Fastify's trustProxy: a function of (address, hop index from the socket's peer). */
export type TrustProxy = false | ((address: string, hop: number) => boolean);

export const TRUST_PROXY_HELP =
  "set TRUST_PROXY to the addresses or CIDRs of your proxies (e.g. TRUST_PROXY=10.0.3.7 or 10.0.3.0/28), or to the number of proxy hops in front of the gateway (e.g. TRUST_PROXY=1), or leave it unset when clients connect directly";

/** Reads TRUST_PROXY; throws a message saying what to set instead. */
export function parseTrustProxy(input: string): TrustProxy {
  const v = input.trim();
  if (v === "" || v.toLowerCase() === "false" || v === "0") return false;
  if (v.toLowerCase() === "true") {
    throw new Error(`true is refused: it takes the leftmost X-Forwarded-For address, which any client can write; ${TRUST_PROXY_HELP}`);
  }
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (!Number.isSafeInteger(hops)) throw new Error(`is not a usable hop count; ${TRUST_PROXY_HELP}`);
    // Hop 0 is the socket's peer, hop 1 the address it appended, and so on.
    return (_address, hop) => hop < hops;
  }
  const list = v.split(",").map((s) => s.trim()).filter(Boolean);
  // Only addresses and CIDRs: proxy-addr's named ranges (uniquelocal, ...) trust whole networks.
  const bad = list.filter((s) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(s));
  if (bad.length > 0 || list.length === 0) throw new Error(`${bad.map((s) => JSON.stringify(s)).join(", ") || "the value"} is not an IP address or CIDR; ${TRUST_PROXY_HELP}`);
  try {
    return proxyAddr.compile(list);
  } catch (e) {
    throw new Error(`${(e as Error).message}; ${TRUST_PROXY_HELP}`);
  }
}
