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

/** For mains: run a start function, and on a ConfigError print it and exit 1 without a stack. */
export async function startOrExit(start: () => Promise<unknown>): Promise<void> {
  try {
    await start();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}
