// Checkout's records on Redis, beside the keys (redis-store.ts), under the same prefix:
//   <prefix>checkout:f       session -> JSON Fulfilment
//   <prefix>checkout:sealed  session -> sealed plaintexts (until shown)
//   <prefix>checkout:shown   session -> when shown
//   <prefix>checkout:sub:<subscription>  set of session ids
//   <prefix>checkout:bykey   key id -> session
//   <prefix>checkout:local   session -> JSON LocalSession
//   <prefix>checkout:lsub    session -> local subscription id, once confirmed
// The claim and the take are Lua scripts: one atomic step each on the server, across replicas.
import type { RedisClient } from "@permits/state";
import { parseFulfilment, parseLocalSession, type CheckoutStore, type Fulfilment, type LocalSession, type TakeSealed } from "./checkout-store.js";
import type { StoredKey } from "./stored-key.js";

/**
 * KEYS: fulfilments, sealed, subscription set, keys, hashes, key index. ARGV: session, fulfilment JSON,
 * sealed, then (id, hash, JSON) per key. Returns the fulfilment already there, or nil once written.
 */
const CLAIM_LUA = `
local there = redis.call('HGET', KEYS[1], ARGV[1])
if there then return there end
for i = 4, #ARGV, 3 do
  if redis.call('HEXISTS', KEYS[4], ARGV[i]) == 1 or redis.call('HEXISTS', KEYS[5], ARGV[i + 1]) == 1 then
    return redis.error_reply('key id or hash already stored')
  end
end
for i = 4, #ARGV, 3 do
  redis.call('HSET', KEYS[4], ARGV[i], ARGV[i + 2])
  redis.call('HSET', KEYS[5], ARGV[i + 1], ARGV[i])
  redis.call('HSET', KEYS[6], ARGV[i], ARGV[1])
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('SADD', KEYS[3], ARGV[1])
return false
`;

/** KEYS: sealed, shown. ARGV: session, now. Returns {1, sealed} once, then {2, shownAt}; {0} when neither. */
const TAKE_LUA = `
local sealed = redis.call('HGET', KEYS[1], ARGV[1])
if sealed then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  return {1, sealed}
end
local shown = redis.call('HGET', KEYS[2], ARGV[1])
if shown then return {2, shown} end
return {0}
`;

export class RedisCheckoutStore implements CheckoutStore {
  private readonly f: string;
  private readonly sealed: string;
  private readonly shown: string;
  private readonly local: string;
  private readonly lsub: string;
  private readonly byKey: string;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly timed: <T>(command: () => Promise<T>) => Promise<T>,
    private readonly keysKey: string,
    private readonly hashesKey: string,
  ) {
    this.f = `${prefix}checkout:f`;
    this.sealed = `${prefix}checkout:sealed`;
    this.shown = `${prefix}checkout:shown`;
    this.local = `${prefix}checkout:local`;
    this.lsub = `${prefix}checkout:lsub`;
    this.byKey = `${prefix}checkout:bykey`;
  }

  private subSet(subscriptionId: string): string {
    return `${this.prefix}checkout:sub:${subscriptionId}`;
  }

  /** The Redis keys this store owns besides per-subscription sets (for tests that clean up). */
  ownedKeys(): string[] {
    return [this.f, this.sealed, this.shown, this.local, this.lsub, this.byKey];
  }

  async claimFulfilment(f: Fulfilment, keys: StoredKey[], sealed: string): Promise<{ claimed: boolean; fulfilment: Fulfilment }> {
    const args = [f.sessionId, JSON.stringify(f), sealed, ...keys.flatMap((k) => [k.id, k.hash, JSON.stringify(k)])];
    const there = await this.timed(
      () => this.client.eval(CLAIM_LUA, { keys: [this.f, this.sealed, this.subSet(f.subscriptionId), this.keysKey, this.hashesKey, this.byKey], arguments: args }),
    );
    return there == null ? { claimed: true, fulfilment: f } : { claimed: false, fulfilment: parseFulfilment(JSON.parse(String(there))) };
  }

  async getFulfilment(sessionId: string): Promise<Fulfilment | undefined> {
    const json = await this.timed(() => this.client.hGet(this.f, sessionId));
    return json == null ? undefined : parseFulfilment(JSON.parse(json));
  }

  async takeSealed(sessionId: string, at: string): Promise<TakeSealed> {
    const reply = (await this.timed(() => this.client.eval(TAKE_LUA, { keys: [this.sealed, this.shown], arguments: [sessionId, at] }))) as unknown[];
    if (reply[0] === 1) return { taken: String(reply[1]) };
    if (reply[0] === 2) return { shownAt: String(reply[1]) };
    return { missing: true };
  }

  async fulfilmentOfKey(keyId: string): Promise<Fulfilment | undefined> {
    const session = await this.timed(() => this.client.hGet(this.byKey, keyId));
    return session == null ? undefined : this.getFulfilment(session);
  }

  async fulfilmentsOf(subscriptionId: string): Promise<Fulfilment[]> {
    const sessions = await this.timed(() => this.client.sMembers(this.subSet(subscriptionId)));
    if (sessions.length === 0) return [];
    const values = await this.timed(() => this.client.hmGet(this.f, sessions));
    return values.filter((v): v is string => v != null).map((v) => parseFulfilment(JSON.parse(v)));
  }

  async putLocalSession(s: LocalSession): Promise<void> {
    await this.timed(() => this.client.hSet(this.local, s.id, JSON.stringify(s)));
  }

  async getLocalSession(id: string): Promise<LocalSession | undefined> {
    const json = await this.timed(() => this.client.hGet(this.local, id));
    return json == null ? undefined : parseLocalSession(JSON.parse(json));
  }

  async claimLocalSubscription(sessionId: string, subscriptionId: string): Promise<string> {
    if (await this.timed(() => this.client.hSetNX(this.lsub, sessionId, subscriptionId))) return subscriptionId;
    return (await this.localSubscriptionOf(sessionId)) ?? subscriptionId;
  }

  async localSubscriptionOf(sessionId: string): Promise<string | undefined> {
    return (await this.timed(() => this.client.hGet(this.lsub, sessionId))) ?? undefined;
  }
}
