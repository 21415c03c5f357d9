// Configuration comes only from environment variables with defaults, validated at start:
// a bad value stops the process with a message naming the variable.
import { cleanEnv, host, makeValidator, port, str, url, type CleanedEnv, type ValidatorSpec } from "envalid";

export { host, port, str, url };

/** A positive integer within bounds, e.g. a byte limit or a timeout. */
export const positiveInt = makeValidator<number>((input) => {
  const n = Number(input);
  if (!/^\d+$/.test(String(input).trim()) || !Number.isSafeInteger(n) || n <= 0) throw new Error("must be a positive integer");
  return n;
});

/** A non-negative integer, where 0 usually means "off". */
export const nonNegativeInt = makeValidator<number>((input) => {
  const n = Number(input);
  if (!/^\d+$/.test(String(input).trim()) || !Number.isSafeInteger(n)) throw new Error("must be a non-negative integer");
  return n;
});

/** A timeout: whole milliseconds from 1 to 60000. */
export const timeoutMillis = makeValidator<number>((input) => {
  const text = String(input).trim();
  if (!/^\d+$/.test(text)) throw new Error("must be a whole number of milliseconds");
  const ms = Number(text);
  if (ms < 1 || ms > 60000) throw new Error("must be between 1 and 60000");
  return ms;
});

/** An optional URL: unset or empty means "not configured". */
export const optionalUrl = makeValidator<string | undefined>((input) => {
  try {
    const u = new URL(input);
    if (!u.protocol || !u.host) throw new Error();
  } catch {
    throw new Error("must be an absolute URL");
  }
  return input;
});

export class ConfigError extends Error {}

/** The error of one bad variable, worded as readEnv words it (for checks across variables). */
export function configError(variable: string, why: string): ConfigError {
  return new ConfigError(`invalid configuration: ${variable}: ${why}`);
}

/** Reads and validates variables; throws ConfigError naming every bad one (never exits by itself). */
export function readEnv<S extends Record<string, ValidatorSpec<unknown>>>(specs: S, source: NodeJS.ProcessEnv = process.env): CleanedEnv<S> {
  // An empty variable counts as unset, so its default applies (compose files often pass "").
  const present = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  return cleanEnv(present, specs, {
    reporter: ({ errors }) => {
      const names = Object.keys(errors);
      if (names.length === 0) return;
      const detail = names.map((n) => `${n}: ${(errors as Record<string, Error>)[n]?.message ?? "invalid"}`).join("; ");
      throw new ConfigError(`invalid configuration: ${detail}`);
    },
  });
}

const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: "the port is already in use",
  EACCES: "permission denied (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "the address is not one of this machine's",
};

/** The one line an operator needs when the listener cannot bind, or undefined for other errors. */
export function listenFailure(e: unknown): string | undefined {
  const err = e as NodeJS.ErrnoException & { address?: string; port?: number };
  const reason = err && typeof err.code === "string" && err.syscall === "listen" ? LISTEN_FAILURES[err.code] : undefined;
  if (!reason) return undefined;
  return `cannot listen on ${err.address ?? "?"}:${err.port ?? "?"}: ${reason}; set PORT (or HOST) to a free address`;
}

/**
 * For mains: run a start function; on a ConfigError, or a listener that cannot bind, print one
 * line naming the variable and exit 1 without a stack.
 */
export async function startOrExit(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (e) {
    const line = e instanceof ConfigError ? e.message : listenFailure(e);
    if (line !== undefined) {
      process.stderr.write(`${line}\n`);
      process.exit(1);
    }
    throw e;
  }
}
