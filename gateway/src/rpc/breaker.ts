// A circuit breaker per remote service, as a Connect interceptor on the gateway's calls to it:
// after consecutive calls that got no answer (the deadline passed, the connection failed), the
// next calls fail at once with Unavailable and Retry-After instead of each waiting out
// RPC_TIMEOUT_MS, until a probe call gets an answer again. An answer the service chose to give,
// even an error (its own Unavailable carries Retry-After), is an answer: it never opens the breaker.
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Breaker, CircuitOpenError, type BreakerOptions } from "@permits/common/breaker";
import type { Logger } from "@permits/common/logger";

/** The call got no answer from the service. */
export function noAnswer(e: unknown): boolean {
  if (!(e instanceof ConnectError)) return false;
  if (e.code === Code.DeadlineExceeded) return true;
  return e.code === Code.Unavailable && !e.metadata.has("retry-after");
}

/** Words for callers: the 503 says what is down and when to retry, never the breaker's internals. */
const OPEN_MESSAGE: Record<string, string> = {
  entitlement: "The key check service is not answering. This is temporary and says nothing about the key",
};

export function breakerInterceptor(service: string, options: BreakerOptions, logger?: Logger): Interceptor {
  const breaker = new Breaker(service, options, noAnswer, {
    onChange: (open) =>
      open
        ? logger?.warn({ service, breaker: "open" }, `${service}: circuit breaker open after ${options.failures} calls without an answer; calls fail at once until a probe is answered`)
        : logger?.info({ service, breaker: "closed" }, `${service}: circuit breaker closed; the service answers again`),
  });
  return (next) => async (req) => {
    try {
      return await breaker.run(() => next(req));
    } catch (e) {
      if (!(e instanceof CircuitOpenError)) throw e;
      const words = OPEN_MESSAGE[service] ?? `The ${service} service is not answering. This is temporary`;
      const n = e.retryAfterSeconds;
      throw new ConnectError(`${words}; retry in ${n} second${n === 1 ? "" : "s"}.`, Code.Unavailable, { "retry-after": String(e.retryAfterSeconds) });
    }
  };
}
