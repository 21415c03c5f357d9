// Redis backend: three hashes under one prefix. Every call reads Redis, so a key issued or
// revoked by another process (the CLI, another replica) takes effect on the next call.
//   <prefix>keys    id      -> JSON StoredKey
//   <prefix>hashes  sha256  -> id
//   <prefix>subs    subId   -> local subscription status
import type { BreakerOptions } from "@permits/runtime";
import { createRedisClient, DEFAULT_REDIS_TIMEOUT_MS, ErrorReply, RedisBreaker, type RedisClient } from "@permits/state";
import { RedisCheckoutStore } from "./redis-checkout-store.js";
import {
  isLocalSubscriptionStatus,
  parseStoredKey,
  StoreUnavailableError,
  type EntitlementStore,
  type LocalSubscriptionStatus,
  type StoredKey,
} from "./store.js";

export const DEFAULT_REDIS_PREFIX = "permits:entitlement:";

export interface RedisStoreOptions {
  url: string;
  prefix?: string;
  /** Longest wait for one command: a Redis that stops answering fails the call instead of holding it. */
  timeoutMs?: number;
  /** Told about connection errors; never given the URL, which may hold a password. */
  onError?: (err: Error) => void;
  /**
   * False: return at once and connect in the background (a service starts while Redis is away,
   * and its commands fail fast until Redis answers, as in any later outage). True (the default,
   * for the keys CLI): wait for the first connection.
   */
  waitForConnection?: boolean;
  /** The circuit breaker on Redis commands (default DEFAULT_BREAKER's). */
  breaker?: BreakerOptions;
  /** Told when the breaker opens (true) and closes (false). */
  onBreaker?: (open: boolean) => void;
}

export class RedisStore implements EntitlementStore {
  readonly backend = "redis" as const;
  private readonly keysKey: string;
  private readonly hashesKey: string;
  private readonly subsKey: string;

  private constructor(
    private readonly client: RedisClient,
    readonly prefix: string,
    private readonly breaker: RedisBreaker,
  ) {
    this.keysKey = `${prefix}keys`;
    this.hashesKey = `${prefix}hashes`;
    this.subsKey = `${prefix}subs`;
  }

  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    // Entitlement keeps its 5 s connect timeout (the recipe's default is 1 s).
    const client = createRedisClient({ url: options.url, connectTimeoutMs: 5000, onError: (err) => options.onError?.(err) });
    const connecting = client.connect();
    if (options.waitForConnection === false) connecting.catch(() => {}); // reported through onError
    else await connecting;
    const breaker = new RedisBreaker(options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS, options.breaker, { onChange: options.onBreaker });
    return new RedisStore(client, options.prefix ?? DEFAULT_REDIS_PREFIX, breaker);
  }

  /**
   * One command, failed after the timeout even when Redis keeps the socket open and says nothing,
   * and at once while the breaker is open (RedisBreaker). Failing to reach Redis is
   * StoreUnavailableError; an error Redis itself answers is not.
   */
  private timed<T>(command: () => Promise<T>): Promise<T> {
    return this.breaker.run(command).catch((e: unknown) => {
      throw e instanceof ErrorReply ? e : new StoreUnavailableError(e);
    });
  }

  /** The Redis keys this store owns (for tests that clean up after themselves). */
  ownedKeys(): string[] {
    return [this.keysKey, this.hashesKey, this.subsKey];
  }

  async insertKey(key: StoredKey): Promise<void> {
    // Claim the hash first: HSETNX refuses a duplicate atomically, then the record follows.
    const claimed = await this.timed(() => this.client.hSetNX(this.hashesKey, key.hash, key.id));
    if (!claimed) throw new Error("key hash already stored");
    const added = await this.timed(() => this.client.hSetNX(this.keysKey, key.id, JSON.stringify(key)));
    if (!added) {
      await this.timed(() => this.client.hDel(this.hashesKey, key.hash));
      throw new Error("key id already stored");
    }
  }

  async findKeyByHash(hash: string): Promise<StoredKey | undefined> {
    const id = await this.timed(() => this.client.hGet(this.hashesKey, hash));
    return id == null ? undefined : this.getKey(id);
  }

  async getKey(id: string): Promise<StoredKey | undefined> {
    const json = await this.timed(() => this.client.hGet(this.keysKey, id));
    return json == null ? undefined : parseStoredKey(JSON.parse(json));
  }

  async listKeys(): Promise<StoredKey[]> {
    const all = await this.timed(() => this.client.hGetAll(this.keysKey));
    return Object.values(all)
      .map((json) => parseStoredKey(JSON.parse(json)))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  async revokeKey(id: string, at: string): Promise<StoredKey | undefined> {
    const key = await this.getKey(id);
    if (!key) return undefined;
    if (key.revokedAt !== null) return key;
    // Two concurrent revocations both write a revokedAt; either timestamp is a correct answer.
    const revoked = { ...key, revokedAt: at };
    await this.timed(() => this.client.hSet(this.keysKey, id, JSON.stringify(revoked)));
    return revoked;
  }

  async getSubscription(id: string): Promise<LocalSubscriptionStatus | undefined> {
    const status = await this.timed(() => this.client.hGet(this.subsKey, id));
    if (status == null) return undefined;
    if (!isLocalSubscriptionStatus(status)) throw new Error("entitlement store holds a bad subscription status");
    return status;
  }

  async setSubscription(id: string, status: LocalSubscriptionStatus): Promise<void> {
    await this.timed(() => this.client.hSet(this.subsKey, id, status));
  }

  private checkoutStore?: RedisCheckoutStore;

  /** Checkout's records beside the keys, so a fulfilment and its keys are written in one script. */
  checkout(): RedisCheckoutStore {
    return (this.checkoutStore ??= new RedisCheckoutStore(this.client, this.prefix, (c) => this.timed(c), this.keysKey, this.hashesKey));
  }

  async ping(): Promise<void> {
    await this.timed(() => this.client.ping());
  }

  async close(): Promise<void> {
    if (this.client.isOpen) await this.client.close();
  }
}
