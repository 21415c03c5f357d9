// Shared store on Redis (node-redis): one EVALSHA per operation, keys hash-tagged by subject so
// a subject's windows sit in one cluster slot (a multi-key script requires that).
import { createRedisClient, defineScript, type CommandParser } from "@permits/state";
import { BEGIN_LUA, COMPLETE_LUA, DECIDE_LUA, REFUND_LUA, RELEASE_LUA } from "./redis-scripts.js";
import {
  DEFAULT_IDEMPOTENCY_TIMES,
  beginFrom,
  encodeResponse,
  type BeginOutcome,
  type DecideOutcome,
  type IdempotencyRecord,
  type IdempotencyTimes,
  type RateLimitStore,
  type StoredResponseData,
} from "./store.js";
import type { WindowCount, WindowPlan } from "./windows.js";

/** Key count varies per policy, so numkeys is pushed here rather than fixed by NUMBER_OF_KEYS. */
function script<R>(lua: string) {
  return defineScript({
    SCRIPT: lua,
    parseCommand(parser: CommandParser, keys: string[], args: string[]) {
      parser.push(String(keys.length));
      for (const k of keys) parser.pushKey(k);
      for (const a of args) parser.push(a);
    },
    transformReply: (reply: unknown) => reply as R,
  });
}

const scripts = {
  rlDecide: script<number[]>(DECIDE_LUA),
  rlBegin: script<string[]>(BEGIN_LUA),
  rlComplete: script<number>(COMPLETE_LUA),
  rlRelease: script<number>(RELEASE_LUA),
  rlRefund: script<number>(REFUND_LUA),
};

export interface RedisStoreOptions {
  url: string;
  /** Prepended to every key; tests use a unique one each. */
  keyPrefix?: string;
  /** Per-command timeout; a decision never waits longer on Redis. */
  commandTimeoutMs?: number;
  /** Connect timeout per attempt. */
  connectTimeoutMs?: number;
  times?: IdempotencyTimes;
  /** Connection errors (every failed reconnect attempt); the client is useless without a listener. */
  onError?: (err: Error) => void;
}

function makeClient(o: RedisStoreOptions) {
  return createRedisClient({
    url: o.url,
    scripts,
    commandTimeoutMs: o.commandTimeoutMs ?? 150,
    connectTimeoutMs: o.connectTimeoutMs,
    onError: o.onError ?? (() => {}),
  });
}

type Client = ReturnType<typeof makeClient>;

export class RedisStore implements RateLimitStore {
  readonly client: Client;
  private readonly prefix: string;
  private readonly times: IdempotencyTimes;
  private connecting?: Promise<void>;

  constructor(options: RedisStoreOptions) {
    this.client = makeClient(options);
    this.prefix = options.keyPrefix ?? "rl:";
    this.times = options.times ?? DEFAULT_IDEMPOTENCY_TIMES;
  }

  /** Starts connecting (once); resolves when the first connection is ready, retrying meanwhile. */
  connect(): Promise<void> {
    this.connecting ??= this.client.connect().then(() => undefined);
    return this.connecting;
  }

  /** True while connected; commands fail immediately otherwise. */
  get ready(): boolean {
    return this.client.isReady;
  }

  /** The Redis key of a subject's window; `{subject}` is the cluster hash tag. */
  windowKey(subject: string, windowKey: string): string {
    return `${this.prefix}{${subject}}:${windowKey}`;
  }

  async decide(subject: string, windows: WindowPlan[], cost: number, nowMs: number): Promise<DecideOutcome> {
    return this.evaluate(subject, windows, cost, nowMs, true);
  }

  async peek(subject: string, windows: WindowPlan[], nowMs: number): Promise<DecideOutcome> {
    return this.evaluate(subject, windows, 1, nowMs, false);
  }

  async refund(subject: string, windows: WindowPlan[], cost: number): Promise<void> {
    const keys = windows.filter((w) => !w.sliding).map((w) => this.windowKey(subject, w.key));
    if (keys.length > 0) await this.client.rlRefund(keys, [String(cost)]);
  }

  private async evaluate(subject: string, windows: WindowPlan[], cost: number, nowMs: number, commit: boolean): Promise<DecideOutcome> {
    const keys = [...windows.map((w) => this.windowKey(subject, w.key)), this.windowKey(subject, "seq")];
    const args = [String(nowMs), String(cost), commit ? "1" : "0"];
    for (const w of windows) args.push(w.sliding ? "s" : "f", String(w.limit), String(w.spanMs), String(w.endMs));
    const reply = (await this.client.rlDecide(keys, args)).map(Number);
    const counts: WindowCount[] = windows.map((_, i) => ({
      used: reply[1 + i * 3],
      resetAtMs: reply[2 + i * 3],
      retryAtMs: reply[3 + i * 3],
    }));
    return { allowed: reply[0] === 1, windows: counts, degraded: false };
  }

  async beginIdempotent(scope: string, key: string, fingerprint: string, nowMs: number): Promise<BeginOutcome> {
    const claim: IdempotencyRecord = { st: "claimed", fp: fingerprint, exp: nowMs + this.times.claimTtlMs };
    const reply = await this.client.rlBegin(
      [this.idemKey(scope, key)],
      [String(nowMs), fingerprint, JSON.stringify(claim), String(this.times.claimTtlMs)],
    );
    switch (reply[0]) {
      case "claimed":
        return { state: "claimed" };
      case "replay":
        return beginFrom(JSON.parse(reply[1]) as IdempotencyRecord, fingerprint) ?? { state: "claimed" };
      case "mismatch":
        return { state: "mismatch" };
      default:
        return { state: "in_flight" };
    }
  }

  async completeIdempotent(scope: string, key: string, fingerprint: string, response: StoredResponseData, nowMs: number): Promise<void> {
    const rec: IdempotencyRecord = { st: "done", fp: fingerprint, exp: nowMs + this.times.ttlMs, res: encodeResponse(response) };
    await this.client.rlComplete([this.idemKey(scope, key)], [String(nowMs), fingerprint, JSON.stringify(rec), String(this.times.ttlMs)]);
  }

  async releaseIdempotent(scope: string, key: string, nowMs: number): Promise<void> {
    await this.client.rlRelease([this.idemKey(scope, key)], [String(nowMs)]);
  }

  async close(): Promise<void> {
    this.connecting?.catch(() => {}); // a pending connect rejects once the client is destroyed
    if (this.client.isOpen) this.client.destroy();
  }

  private idemKey(scope: string, key: string): string {
    return `${this.prefix}idem:{${scope}}:${key}`;
  }
}
