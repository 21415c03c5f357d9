// The one Redis client recipe: how a process connects, how long it waits, when it gives up on a
// silent Redis, and how it reconnects. The stores of entitlement and ratelimit and the gateway's
// readiness probe all connect through it.
import { createClient, type RedisScripts } from "redis";
import { Breaker, DEFAULT_BREAKER, TimeoutError, withTimeout, type BreakerEvents, type BreakerOptions } from "@permits/runtime";

export { defineScript, ErrorReply, type CommandParser } from "redis";

/** Default wait for one connection attempt. */
const CONNECT_TIMEOUT_MS = 1000;

/** Retry for ever, 50 ms doubling to at most 2 s, so shared state resumes soon after Redis returns. */
function reconnectDelayMs(retries: number): number {
  return Math.min(50 * 2 ** retries, 2000);
}

export interface RedisClientOptions<S extends RedisScripts> {
  url: string;
  /**
   * Told of connection errors (every failed reconnect attempt); never given the URL, which may
   * hold a password. Required: without a listener node-redis crashes the process on a dropped connection.
   */
  onError: (err: Error) => void;
  /** One connection attempt (default 1 s). */
  connectTimeoutMs?: number;
  /** node-redis's own timeout, on commands it still holds; a silent socket needs RedisBreaker's too. */
  commandTimeoutMs?: number;
  /** Lua scripts, loaded once and called by EVALSHA. */
  scripts?: S;
}

/** A client that is not yet connected (call `connect()`). */
export function createRedisClient<S extends RedisScripts = {}>(options: RedisClientOptions<S>) {
  const client = createClient({
    url: options.url,
    scripts: options.scripts,
    // Fail at once while disconnected instead of queueing behind a dead socket: a request must not hang on Redis.
    disableOfflineQueue: true,
    ...(options.commandTimeoutMs === undefined ? {} : { commandOptions: { timeout: options.commandTimeoutMs } }),
    socket: { connectTimeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS, reconnectStrategy: reconnectDelayMs },
  });
  client.on("error", (err: Error) => options.onError(err));
  return client;
}

/** A client without scripts. */
export type RedisClient = ReturnType<typeof createRedisClient<{}>>;

/**
 * Every Redis command a store sends: failed after `timeoutMs` even when Redis keeps the socket
 * open and says nothing (node-redis only times out commands it still queues), and refused at once
 * while the breaker is open. Timeouts only open it: a refused connection fails fast already, and
 * counting it would hold the breaker open (up to a probe period) after Redis is back.
 */
export class RedisBreaker {
  private readonly breaker: Breaker;

  constructor(
    private readonly timeoutMs: number,
    options: BreakerOptions = DEFAULT_BREAKER,
    events: BreakerEvents = {},
  ) {
    this.breaker = new Breaker("redis", options, (e) => e instanceof TimeoutError, events);
  }

  /** Rejects with TimeoutError after the timeout, CircuitOpenError while open, or the command's own error. */
  run<T>(command: () => Promise<T>): Promise<T> {
    return this.breaker.run(() => withTimeout(command(), this.timeoutMs, "redis command"));
  }
}

/** Readiness: whether Redis answers PING within 500 ms (the gateway's /readyz). */
export function redisProbe(url: string) {
  const client = createRedisClient({ url, onError: () => {} }); // reported through /readyz, not as an unhandled event
  const connecting = client.connect().catch(() => undefined);
  return {
    ping: async (): Promise<boolean> => {
      await connecting;
      try {
        return (await withTimeout(client.ping(), 500, "redis ping")) === "PONG";
      } catch {
        return false;
      }
    },
    close: async (): Promise<void> => {
      await client.close().catch(() => undefined);
    },
  };
}
