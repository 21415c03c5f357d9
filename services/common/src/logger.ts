import { pino, type Logger } from "pino";

export type { Logger };

// API keys travel in these headers and fields; they must never reach a log line.
const redact = {
  paths: [
    "req.headers.authorization",
    'req.headers["x-api-key"]',
    "headers.authorization",
    'headers["x-api-key"]',
    "apiKey",
    "*.apiKey",
    "secret",
    "*.secret",
  ],
  censor: "[redacted]",
};

export function createLogger(name: string, opts: { level?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  // An empty LOG_LEVEL counts as unset, as every variable does.
  const level = opts.level || process.env.LOG_LEVEL || "info";
  return opts.destination
    ? pino({ name, level, redact }, opts.destination as never)
    : pino({ name, level, redact });
}
