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
  return pino({ name, level, redact }, (opts.destination ?? stdout()) as never);
}

// Standard output written asynchronously: pino's default is one synchronous write(2) per line,
// which under load cost a system call per request on the hot path. Asynchronously, lines that
// arrive while a write is in flight go out together; an idle service still writes each line at
// once. pino flushes what is pending when the process exits.
function stdout() {
  return pino.destination({ dest: 1, sync: false });
}
