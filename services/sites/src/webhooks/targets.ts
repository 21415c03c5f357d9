// Where a webhook may be sent: HTTPS to a public address. A name is resolved and every address it
// has is checked, at registration (a clear refusal) and again at each connection (the lookup the
// request itself uses), so a name cannot be pointed at an inside address after it was accepted.
// WEBHOOK_ALLOW_PRIVATE=1 lifts the address check and allows http to a loopback host (tests, a
// receiver on the same machine).
import { type LookupAddress, lookup } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export interface TargetPolicy {
  allowPrivate: boolean;
}

const MAX_URL = 2000;
const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

export class TargetRefused extends Error {
  override name = "TargetRefused";
}

/** Loopback, private, link-local, unique-local, carrier-grade NAT, multicast, reserved: all but global unicast. */
export function isPublicAddress(ip: string): boolean {
  return ipaddr.isValid(ip) && ipaddr.process(ip).range() === "unicast";
}

/** What is wrong with the URL as a target, in plain words (no lookup), or undefined. */
export function urlProblem(text: string, policy: TargetPolicy): string | undefined {
  if (text.length > MAX_URL) return `The address must be at most ${MAX_URL} characters.`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "Give a full address starting with https://.";
  }
  if (url.username || url.password) return "The address must not carry a user name or password.";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && policy.allowPrivate && LOOPBACK_NAMES.has(url.hostname)) return undefined;
  return "The address must start with https:// (deliveries are only sent encrypted).";
}

function refusal(host: string, address: string): TargetRefused {
  return new TargetRefused(`${host} is at ${address}, a private, loopback or link-local address, which deliveries are never sent to.`);
}

/** Resolves the host and refuses it unless every address is public (or the policy allows private ones). */
export async function checkHost(hostname: string, policy: TargetPolicy): Promise<void> {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  const addresses = isIP(host) ? [host] : (await resolveAll(host)).map((a) => a.address);
  if (policy.allowPrivate) return;
  const inside = addresses.find((a) => !isPublicAddress(a));
  if (inside !== undefined) throw refusal(host, inside);
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    lookup(host, { all: true }, (err, addresses) => (err ? reject(new TargetRefused(`${host} could not be found (${err.code ?? "lookup failed"}).`)) : resolve(addresses))),
  );
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The `lookup` of http.request: the same check on the addresses the connection will use. */
export function guardedLookup(policy: TargetPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    lookup(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const inside = policy.allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (inside) return callback(refusal(hostname, inside.address), []);
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
