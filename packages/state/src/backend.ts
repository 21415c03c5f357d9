// The choice every stateful service makes the same way: Redis when REDIS_URL is set (state shared
// by every replica), else LMDB files under STATE_DIR (the embedded deployment). One function reads
// the variables, so the services cannot disagree on what they mean (sql.ts reads the SQL
// database's the same way, with the same STATE_DIR).
import path from "node:path";
import { makeExactValidator, makeValidator } from "envalid";
import { readBreakerOptions, readEnv, timeoutMillis, type BreakerOptions } from "@permits/runtime";

export const DEFAULT_STATE_DIR = "./.state";
/** The documented default of REDIS_TIMEOUT_MS: the longest any call waits on Redis. */
export const DEFAULT_REDIS_TIMEOUT_MS = 250;

export type StateBackend =
  | { backend: "lmdb"; /** Absolute. */ stateDir: string }
  | { backend: "redis"; url: string; /** Longest wait for one command. */ timeoutMs: number; breaker: BreakerOptions };

const redisUrl = makeExactValidator<string>((input) => {
  const text = input.trim();
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new Error("is not a URL (expected redis://host:port)");
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") throw new Error("must use redis:// or rediss://");
  return text;
});

/** STATE_DIR's validator: a path, trimmed. */
export const stateDirPath = makeValidator<string>((input) => {
  if (input.includes("\0")) throw new Error("is not a valid path");
  return input.trim();
});

/** REDIS_URL, STATE_DIR, REDIS_TIMEOUT_MS and the breaker's variables; throws a ConfigError naming a bad one. */
export function readStateBackend(env: NodeJS.ProcessEnv): StateBackend {
  const v = readEnv(
    {
      REDIS_URL: redisUrl({ default: undefined, desc: "redis:// or rediss:// URL of the shared state; unset: LMDB in STATE_DIR." }),
      STATE_DIR: stateDirPath({ default: DEFAULT_STATE_DIR, desc: "Where the embedded state lives (when REDIS_URL is unset)." }),
      REDIS_TIMEOUT_MS: timeoutMillis({ default: DEFAULT_REDIS_TIMEOUT_MS, desc: "Longest wait for one Redis command." }),
    },
    env,
  );
  const breaker = readBreakerOptions(env); // checked whichever the backend, as every process with a breaker does
  if (v.REDIS_URL === undefined) return { backend: "lmdb", stateDir: path.resolve(v.STATE_DIR) };
  return { backend: "redis", url: v.REDIS_URL, timeoutMs: v.REDIS_TIMEOUT_MS, breaker };
}
