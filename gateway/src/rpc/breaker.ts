// A circuit breaker per remote service, as a Connect interceptor on the gateway's calls to it:
// after consecutive calls that waited out their deadline without an answer, the next calls fail at once with Unavailable and Retry-After instead of each waiting out
// RPC_TIMEOUT_MS, until a probe call gets an answer again. An answer the service chose to give,
// even an error (its own Unavailable carries Retry-After), is an answer: it never opens the breaker.
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Breaker, CircuitOpenError, type BreakerOptions, type Logger } from "@permits/runtime";

/**
 * The call waited out its deadline without an answer. A refused connection fails fast already:
 * counting it would hold the breaker open (up to a probe period) after the service is back.
 */
export function noAnswer(e: unknown): boolean {
  return e instanceof ConnectError && e.code === Code.DeadlineExceeded;
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
