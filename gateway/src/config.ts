import { DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent, host, nonNegativeInt, optionalUrl, port, positiveInt, readEnv, str } from "@permits/runtime";
import { DEFAULT_LIMITS } from "@permits/rpc";
import { makeValidator } from "envalid";
import { parseTrustProxy, type TrustProxy } from "./http/client-address.js";
import { GATEWAY, SERVICES, urlVariable, type UrlVariable } from "./services.js";

/** Fastify's trustProxy from TRUST_PROXY (client-address.ts): off, proxy addresses/CIDRs, or a hop count. */
const trustProxy = makeValidator<TrustProxy>(parseTrustProxy);

/** STORMWATER_URL and the others, one a service: set, the gateway calls that service there; unset, in process. */
const serviceUrls = Object.fromEntries(SERVICES.map((s) => [urlVariable(s.name), optionalUrl({ default: undefined, desc: `Reach the ${s.name} service remotely (HTTP/2); unset = in process.` })])) as Record<UrlVariable, ReturnType<typeof optionalUrl>>;

export function readGatewayConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = readEnv(
    {
      HOST: host({ default: "127.0.0.1", desc: "Address the gateway listens on." }),
      PORT: port({ default: GATEWAY.port, desc: "Port the gateway listens on." }),
      LOG_LEVEL: str({ default: "info", choices: ["fatal", "error", "warn", "info", "debug", "trace", "silent"] }),
      BODY_LIMIT_BYTES: positiveInt({ default: 65536, desc: "Largest accepted request body." }),
      TRUST_PROXY: trustProxy({ default: false, desc: "The proxies in front of the gateway: their addresses or CIDRs (comma-separated), or a hop count; the client is the rightmost X-Forwarded-For address not among them. Unset: the socket's peer. `true` is refused." }),
      RPC_TIMEOUT_MS: positiveInt({ default: 5000, desc: "Deadline of each call to a remote service." }),
      // The same limits, and defaults, as every service's listener.
      HEADERS_TIMEOUT_MS: positiveInt({ default: DEFAULT_LIMITS.headersTimeoutMs, desc: "A client must send its whole request head within this time (slowloris)." }),
      REQUEST_TIMEOUT_MS: positiveInt({ default: DEFAULT_LIMITS.requestTimeoutMs, desc: "A client must send its whole request within this time." }),
      KEEP_ALIVE_TIMEOUT_MS: positiveInt({ default: DEFAULT_LIMITS.keepAliveTimeoutMs, desc: "An idle keep-alive connection is closed after this time." }),
      MAX_HEADER_BYTES: positiveInt({ default: DEFAULT_LIMITS.maxHeaderBytes, desc: "Largest request head; larger gets 431." }),
      MAX_CONNECTIONS: positiveInt({ default: DEFAULT_LIMITS.maxConnections, desc: "Open connections the gateway accepts in all; more are refused." }),
      MAX_CONNECTIONS_PER_ADDRESS: nonNegativeInt({ default: 256, desc: "Open connections one client address may hold; 0 = no cap (behind a proxy)." }),
      ...serviceUrls,
      REDIS_URL: optionalUrl({ default: undefined }),
      PUBLIC_URL: optionalUrl({ default: undefined, desc: "The gateway's public origin (https://api.example.com), for the URLs checkout hands to Stripe; the request's own origin when unset." }),
      SANDBOX_KEY: str({ default: "svc_sandbox_public", desc: "The public sandbox key, as the entitlement service is configured; shown on /docs, /pricing and GET /api/v1." }),
      HEAP_GROWING_PERCENT: heapGrowingPercent({ default: DEFAULT_HEAP_GROWING_PERCENT, desc: "Old-generation growth between full GCs, in percent; 0 = V8's own." }),
    },
    env,
  );
  // A gateway that calls every service remotely leaves heap growth to V8 unless told otherwise:
  // bounded at 100 it spent 8 to 18 % more CPU per NWP batch, for about 70 MB less RSS. The
  // bound stays where the services run in process (the embedded deployment's RSS target).
  const allRemote = SERVICES.every((s) => config[urlVariable(s.name)]);
  const heapGrowingUnset = (env.HEAP_GROWING_PERCENT ?? "") === "";
  return { ...config, HEAP_GROWING_PERCENT: allRemote && heapGrowingUnset ? 0 : config.HEAP_GROWING_PERCENT };
}

export type GatewayConfig = ReturnType<typeof readGatewayConfig>;
