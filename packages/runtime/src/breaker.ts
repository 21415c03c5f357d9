// A circuit breaker around one dependency (Redis, a remote service), from cockatiel: after
// `failures` consecutive failures it opens, and calls fail at once instead of each waiting out
// its timeout; after `probeAfterMs` one call is let through as a probe (the others still fail
// at once), and its success closes the breaker. What counts as a failure is the caller's to say
// (a timeout, a refused connection), never an answer the dependency chose to give.
import { circuitBreaker, CircuitState, ConsecutiveBreaker, handleWhen, isBrokenCircuitError, type CircuitBreakerPolicy } from "cockatiel";
import { nonNegativeInt, positiveInt, readEnv } from "./config.js";

export interface BreakerOptions {
  /** Consecutive failures that open the breaker; 0 turns it off. */
  failures: number;
  /** How long it stays open before one probe call is let through. */
  probeAfterMs: number;
}

export const DEFAULT_BREAKER: BreakerOptions = { failures: 5, probeAfterMs: 1000 };

/** CIRCUIT_BREAKER_FAILURES and CIRCUIT_BREAKER_PROBE_MS, read by every process that has one. */
export function readBreakerOptions(env: NodeJS.ProcessEnv): BreakerOptions {
  const v = readEnv(
    {
      CIRCUIT_BREAKER_FAILURES: nonNegativeInt({ default: DEFAULT_BREAKER.failures, desc: "Consecutive timeouts or refused connections of one dependency that open its circuit breaker; 0 = off." }),
      CIRCUIT_BREAKER_PROBE_MS: positiveInt({ default: DEFAULT_BREAKER.probeAfterMs, desc: "How long an open breaker answers at once before it lets one probe call through." }),
    },
    env,
  );
  return { failures: v.CIRCUIT_BREAKER_FAILURES, probeAfterMs: v.CIRCUIT_BREAKER_PROBE_MS };
}

/** Thrown instead of calling a dependency whose breaker is open. */
export class CircuitOpenError extends Error {
  constructor(
    readonly dependency: string,
    /** Whole seconds until the breaker lets a probe through, at least 1. */
    readonly retryAfterSeconds: number,
  ) {
    super(`${dependency}: circuit breaker open after consecutive failures`);
    this.name = "CircuitOpenError";
  }
}

export interface BreakerEvents {
  /** True when it opens, false when a probe closed it again. */
  onChange?: (open: boolean) => void;
}

export class Breaker {
  private readonly policy: CircuitBreakerPolicy | undefined;
  private readonly retryAfterSeconds: number;

  constructor(
    readonly dependency: string,
    options: BreakerOptions,
    isFailure: (err: unknown) => boolean,
    events: BreakerEvents = {},
  ) {
    this.retryAfterSeconds = Math.max(1, Math.ceil(options.probeAfterMs / 1000));
    if (options.failures === 0) return;
    this.policy = circuitBreaker(handleWhen((e) => isFailure(e)), { halfOpenAfter: options.probeAfterMs, breaker: new ConsecutiveBreaker(options.failures) });
    this.policy.onBreak(() => events.onChange?.(true));
    this.policy.onReset(() => events.onChange?.(false));
  }

  /** Open or half-open (a probe in flight): calls are being refused at once. */
  get open(): boolean {
    return this.policy !== undefined && this.policy.state !== CircuitState.Closed;
  }

  /** Runs `call` unless the breaker is open; then throws CircuitOpenError without calling. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    if (!this.policy) return call();
    // A probe is in flight: cockatiel would hold this call until the probe's outcome (up to a
    // whole timeout); it is refused at once instead, as while open.
    if (this.policy.state === CircuitState.HalfOpen) throw new CircuitOpenError(this.dependency, this.retryAfterSeconds);
    try {
      return await this.policy.execute(call);
    } catch (e) {
      if (isBrokenCircuitError(e)) throw new CircuitOpenError(this.dependency, this.retryAfterSeconds);
      throw e;
    }
  }
}
