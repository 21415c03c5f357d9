// Window maths shared by every store: which counter a request touches at a given instant, and how
// a store's raw counts become the WindowStatus the gateway turns into headers.
//
// Algorithm choice. The per-minute burst must never admit more than its limit in ANY 60-second
// span, so it is a sliding-window LOG (one timestamp per admitted unit, pruned after 60 s):
// - GCRA (a token bucket) admits `limit` at once and then refills continuously, so within 60 s
//   it lets through the burst plus everything that refilled meanwhile (up to ~2x the limit).
// - A fixed minute window resets at :00, so `limit` at 0:59 plus `limit` at 1:00 is 2x the
//   limit inside two seconds.
// The log costs one entry per admitted unit (at most `limit`, i.e. <= 300 for Scale), which is
// cheap. Hour, day and month are fixed calendar windows in UTC because that is what callers are
// told ("resets at 00:00 UTC", "resets on the 1st"), and a plan ceiling is per calendar month.
import type { Policy, WindowName } from "./policies.js";

export const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** One window of a policy at one instant, as a store needs it. */
export interface WindowPlan {
  name: WindowName;
  limit: number;
  quota: boolean;
  /** true for the sliding minute log, false for a fixed calendar counter. */
  sliding: boolean;
  /** Counter name within the subject: "minute", or e.g. "day:2026-03-14" (a new window is a new counter). */
  key: string;
  /** Sliding: the span (60 s). Fixed: the calendar window's length (month lengths differ). */
  spanMs: number;
  /** Fixed: the window's end (exclusive), i.e. when the counter resets. Sliding: now + span. */
  endMs: number;
}

/** What a store reports per window, in the plan's order. */
export interface WindowCount {
  /** Units counted in the window (after this request, when it was admitted). */
  used: number;
  /** When the window frees capacity: fixed = window end; sliding = when the oldest counted entry leaves. */
  resetAtMs: number;
  /** When a request of this cost would fit this window; 0 when it fits now. */
  retryAtMs: number;
}

export interface WindowStatusInit {
  name: string;
  limit: number;
  used: number;
  remaining: number;
  resetAt: number;
  windowSeconds: number;
  quota: boolean;
}

/** The windows of `policy` at instant `nowMs`, in the policy's order. */
export function planWindows(policy: Policy, nowMs: number): WindowPlan[] {
  return policy.windows.map((w) => {
    if (w.name === "minute") {
      return { name: w.name, limit: w.limit, quota: w.quota, sliding: true, key: "minute", spanMs: MINUTE_MS, endMs: nowMs + MINUTE_MS };
    }
    const [start, end] = calendarWindow(w.name, nowMs);
    return { name: w.name, limit: w.limit, quota: w.quota, sliding: false, key: `${w.name}:${windowLabel(w.name, start)}`, spanMs: end - start, endMs: end };
  });
}

/** [start, end) in epoch ms of the UTC calendar window holding `nowMs`. */
export function calendarWindow(name: Exclude<WindowName, "minute">, nowMs: number): [number, number] {
  switch (name) {
    case "hour": {
      const start = Math.floor(nowMs / HOUR_MS) * HOUR_MS;
      return [start, start + HOUR_MS];
    }
    case "day": {
      // Epoch time has no leap seconds, so UTC days are exactly 86,400,000 ms.
      const start = Math.floor(nowMs / DAY_MS) * DAY_MS;
      return [start, start + DAY_MS];
    }
    case "month": {
      const d = new Date(nowMs);
      return [Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)];
    }
  }
}

// Every decision names its windows; the label changes only when a window starts, so the last one
// per window kind is remembered instead of formatting a date per window per request.
const lastLabel = new Map<string, { startMs: number; label: string }>();

function windowLabel(name: Exclude<WindowName, "minute">, startMs: number): string {
  const cached = lastLabel.get(name);
  if (cached?.startMs === startMs) return cached.label;
  const iso = new Date(startMs).toISOString(); // 2026-03-14T05:00:00.000Z
  const label = name === "hour" ? iso.slice(0, 13) : name === "day" ? iso.slice(0, 10) : iso.slice(0, 7);
  lastLabel.set(name, { startMs, label });
  return label;
}

export function toStatus(plan: WindowPlan, count: WindowCount): WindowStatusInit {
  return {
    name: plan.name,
    limit: plan.limit,
    used: count.used,
    remaining: Math.max(0, plan.limit - count.used),
    // Rounded up: a client that waits until the announced second never arrives early.
    resetAt: Math.ceil(count.resetAtMs / 1000),
    windowSeconds: Math.round(plan.spanMs / 1000),
    quota: plan.quota,
  };
}

/**
 * The window the caller should be shown. Refused: the refusing window that frees last (the
 * request cannot pass before it). Admitted: the one with the fewest units left, ties going to the
 * later reset (the longer wait is the more useful warning).
 */
export function bindingWindow(counts: WindowCount[], plans: WindowPlan[], allowed: boolean): number {
  let best = 0;
  for (let i = 1; i < counts.length; i++) {
    const a = counts[i];
    const b = counts[best];
    if (!allowed) {
      if (a.retryAtMs > b.retryAtMs) best = i;
      continue;
    }
    const ra = plans[i].limit - a.used;
    const rb = plans[best].limit - b.used;
    if (ra < rb || (ra === rb && a.resetAtMs > b.resetAtMs)) best = i;
  }
  return best;
}

/** Whole seconds until a refused request may pass; never below 1 so a client always backs off. */
export function retryAfterSeconds(counts: WindowCount[], nowMs: number): number {
  const at = Math.max(...counts.map((c) => c.retryAtMs));
  return Math.max(1, Math.ceil((at - nowMs) / 1000));
}
