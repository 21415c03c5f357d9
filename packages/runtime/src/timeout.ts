/** What withTimeout rejects with: the call got no answer in time (circuit breakers count these). */
export class TimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TimeoutError";
  }
}

/**
 * Settles with `p`, or rejects once `ms` have passed. A client's own command timeout cannot be
 * trusted to cover a command already written to a socket whose peer went silent (node-redis only
 * times out commands still queued), so calls to shared stores are raced against this.
 */
export function withTimeout<T>(p: Promise<T>, ms: number, what = "call"): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} timed out after ${ms} ms`)), ms);
  });
  p.catch(() => {}); // the loser of the race must not surface as an unhandled rejection
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
