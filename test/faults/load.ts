// A steady load for the fault scenarios: `rate` requests per second for `durationMs`, sent in
// small concurrent bursts every TICK_MS, each outcome recorded with its timing (real counts, no
// sampling). Plain fetch: undici's global pool keeps connections alive, as most API clients do.
import { performance } from "node:perf_hooks";
import { readErrorBody } from "../support/error-body.js";

/** Document 1 (stormwater) or document 2 (nwp) error vocabulary. */
export type Surface = "doc1" | "doc2";

export interface Target {
  /** What the request stands for in the figures (e.g. "anonymous", "legacy-active"). */
  label: string;
  surface: Surface;
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface Outcome {
  label: string;
  surface: Surface;
  /** performance.now() when the request was handed to fetch, and when it settled. */
  startedAt: number;
  endedAt: number;
  status?: number;
  /** Network failure instead of a response: the cause's code (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET, ...). */
  error?: string;
  requestId: string | null;
  retryAfter: string | null;
  tier: string | null;
  /** error.code of an error body. */
  code?: string;
  /** Why an error body is not in its surface's shape; undefined when it is (or on 2xx). */
  shapeProblem?: string;
}

export interface Load {
  /** Every outcome, once the last request settled, in the order they were sent. */
  readonly done: Promise<Outcome[]>;
}

const TICK_MS = 50;
/** A request that takes this long counts as a failure (error "timeout") rather than hanging the run. */
const REQUEST_TIMEOUT_MS = 15_000;

export const now = (): number => performance.now();
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Starts sending at once; `pick(i)` chooses the i-th request. */
export function startLoad(opts: { rate: number; durationMs: number; pick: (i: number) => Target }): Load {
  const total = Math.round((opts.rate * opts.durationMs) / 1000);
  const outcomes: Outcome[] = [];
  const pending = new Set<Promise<void>>();
  let sent = 0;
  const t0 = now();
  const fire = () => {
    // Requests due by now, so a late timer catches up instead of lowering the rate.
    const due = Math.min(total, Math.floor((opts.rate * (now() - t0)) / 1000) + 1);
    while (sent < due) {
      const p = send(opts.pick(sent)).then((o) => {
        outcomes.push(o);
        pending.delete(p);
      });
      pending.add(p);
      sent++;
    }
  };
  const done = new Promise<Outcome[]>((resolve) => {
    fire();
    const timer = setInterval(() => {
      fire();
      if (sent < total) return;
      clearInterval(timer);
      void (async () => {
        while (pending.size > 0) await Promise.all([...pending]);
        resolve(outcomes.sort((a, b) => a.startedAt - b.startedAt));
      })();
    }, TICK_MS);
  });
  return { done };
}

async function send(t: Target): Promise<Outcome> {
  const startedAt = now();
  const base = { label: t.label, surface: t.surface, startedAt, requestId: null, retryAfter: null, tier: null };
  try {
    const res = await fetch(t.url, { method: t.method, headers: t.headers, body: t.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    const o: Outcome = {
      ...base,
      endedAt: now(),
      status: res.status,
      requestId: res.headers.get("x-request-id"),
      retryAfter: res.headers.get("retry-after"),
      tier: res.headers.get("x-service-tier"),
    };
    if (res.status >= 400) readError(o, text);
    return o;
  } catch (e) {
    return { ...base, endedAt: now(), error: networkError(e) };
  }
}

function networkError(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === "TimeoutError") return "timeout";
  return err.cause?.code ?? err.cause?.message ?? err.message;
}

/** The error's code, and whether its request id field is its surface's and equals X-Request-Id. */
function readError(o: Outcome, text: string): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    o.shapeProblem = `body is not JSON: ${JSON.stringify(text.slice(0, 60))}`;
    return;
  }
  const e = readErrorBody(body);
  if ("problem" in e) {
    o.shapeProblem = e.problem;
    return;
  }
  o.code = e.code;
  const field = e.surface === "stormwater" ? "request_id" : "error.requestId";
  if ((e.surface === "stormwater") !== (o.surface === "doc1")) o.shapeProblem = `answered in the other document's vocabulary (${field})`;
  else if (e.requestId !== o.requestId) o.shapeProblem = `${field} ${JSON.stringify(e.requestId)} is not X-Request-Id ${JSON.stringify(o.requestId)}`;
}
