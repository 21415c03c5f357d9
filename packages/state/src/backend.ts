// The choices every stateful service makes the same way: Redis when REDIS_URL is set (state shared
// by every replica), else LMDB files under STATE_DIR (the embedded deployment); and for records in
// SQL, PostgreSQL when DATABASE_URL is set, else a SQLite file under STATE_DIR. One function reads
// each set of variables, so the services and their tools cannot disagree on what they mean.
import path from "node:path";
import { makeExactValidator, makeValidator } from "envalid";
import { positiveInt, readBreakerOptions, readEnv, timeoutMillis, type BreakerOptions } from "@permits/runtime";

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

const directory = makeValidator<string>((input) => {
  if (input.includes("\0")) throw new Error("is not a valid path");
  return input.trim();
});

/** REDIS_URL, STATE_DIR, REDIS_TIMEOUT_MS and the breaker's variables; throws a ConfigError naming a bad one. */
export function readStateBackend(env: NodeJS.ProcessEnv): StateBackend {
  const v = readEnv(
    {
      REDIS_URL: redisUrl({ default: undefined, desc: "redis:// or rediss:// URL of the shared state; unset: LMDB in STATE_DIR." }),
      STATE_DIR: directory({ default: DEFAULT_STATE_DIR, desc: "Where the embedded state lives (when REDIS_URL is unset)." }),
      REDIS_TIMEOUT_MS: timeoutMillis({ default: DEFAULT_REDIS_TIMEOUT_MS, desc: "Longest wait for one Redis command." }),
    },
    env,
  );
  const breaker = readBreakerOptions(env); // checked whichever the backend, as every process with a breaker does
  if (v.REDIS_URL === undefined) return { backend: "lmdb", stateDir: path.resolve(v.STATE_DIR) };
  return { backend: "redis", url: v.REDIS_URL, timeoutMs: v.REDIS_TIMEOUT_MS, breaker };
}

/** Where a service's SQL records are: `@permits/state/sql`'s openSql takes this with the file's name. */
export interface SqlBackend {
  /** PostgreSQL; undefined: the SQLite file under stateDir. */
  databaseUrl: string | undefined;
  /** Absolute. */
  stateDir: string;
  /** The most connections to PostgreSQL. */
  poolSize: number;
}

const postgresUrl = makeValidator<string | undefined>((input) => {
  let u: URL;
  try {
    u = new URL(input);
    if (!u.protocol || !u.host) throw new Error();
  } catch {
    throw new Error("must be an absolute URL");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") throw new Error("must be a postgres:// or postgresql:// URL");
  return input;
});

/** DATABASE_URL, STATE_DIR and DATABASE_POOL_SIZE; throws a ConfigError naming a bad one. Loads no SQL driver. */
export function readSqlBackend(env: NodeJS.ProcessEnv): SqlBackend {
  const v = readEnv(
    {
      DATABASE_URL: postgresUrl({ default: undefined, desc: "PostgreSQL for the records kept in SQL, the sites service's (postgres://user:password@host:5432/db); unset: a SQLite file under STATE_DIR." }),
      STATE_DIR: directory({ default: DEFAULT_STATE_DIR, desc: "Where the embedded database lives when DATABASE_URL is unset." }),
      DATABASE_POOL_SIZE: positiveInt({ default: 10, desc: "Most connections one process opens to PostgreSQL." }),
    },
    env,
  );
  return { databaseUrl: v.DATABASE_URL, stateDir: path.resolve(v.STATE_DIR), poolSize: v.DATABASE_POOL_SIZE };
}
