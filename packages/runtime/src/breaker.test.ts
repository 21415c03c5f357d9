import { describe, expect, it } from "vitest";
import { Breaker, CircuitOpenError, readBreakerOptions } from "./breaker.js";

class Timeout extends Error {}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("Breaker", () => {
  it("opens after the configured consecutive failures, then refuses at once without calling", async () => {
    let calls = 0;
    const changes: boolean[] = [];
    const b = new Breaker("redis", { failures: 3, probeAfterMs: 60_000 }, (e) => e instanceof Timeout, { onChange: (open) => changes.push(open) });
    const failing = async () => {
      calls++;
      throw new Timeout();
    };
    for (let i = 0; i < 3; i++) await expect(b.run(failing)).rejects.toBeInstanceOf(Timeout);
    expect(b.open).toBe(true);
    const e = await b.run(failing).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CircuitOpenError);
    expect((e as CircuitOpenError).retryAfterSeconds).toBe(60);
    expect(calls).toBe(3);
    expect(changes).toEqual([true]);
  });

  it("errors the caller does not count as failures (an answer) never open it, and a success resets the count", async () => {
    const b = new Breaker("svc", { failures: 2, probeAfterMs: 1000 }, (e) => e instanceof Timeout);
    for (let i = 0; i < 5; i++) await expect(b.run(async () => { throw new Error("answered: invalid"); })).rejects.toThrow("answered");
    await expect(b.run(async () => { throw new Timeout(); })).rejects.toBeInstanceOf(Timeout);
    await expect(b.run(async () => 1)).resolves.toBe(1);
    await expect(b.run(async () => { throw new Timeout(); })).rejects.toBeInstanceOf(Timeout);
    expect(b.open).toBe(false);
  });

  it("after probeAfterMs lets one probe through; its success closes the breaker", async () => {
    const changes: boolean[] = [];
    const b = new Breaker("svc", { failures: 1, probeAfterMs: 50 }, () => true, { onChange: (open) => changes.push(open) });
    await expect(b.run(async () => { throw new Timeout(); })).rejects.toBeInstanceOf(Timeout);
    await expect(b.run(async () => 1)).rejects.toBeInstanceOf(CircuitOpenError);
    await sleep(70);
    // The probe is in flight: a concurrent call is refused at once.
    let release!: () => void;
    const probe = b.run(() => new Promise<string>((r) => (release = () => r("probe ok"))));
    await expect(b.run(async () => 2)).rejects.toBeInstanceOf(CircuitOpenError);
    release();
    await expect(probe).resolves.toBe("probe ok");
    expect(b.open).toBe(false);
    await expect(b.run(async () => 3)).resolves.toBe(3);
    expect(changes).toEqual([true, false]);
  });

  it("a failed probe keeps it open for another probeAfterMs", async () => {
    const b = new Breaker("svc", { failures: 1, probeAfterMs: 50 }, () => true);
    await expect(b.run(async () => { throw new Timeout(); })).rejects.toBeInstanceOf(Timeout);
    await sleep(70);
    await expect(b.run(async () => { throw new Timeout(); })).rejects.toBeInstanceOf(Timeout);
    await expect(b.run(async () => 1)).rejects.toBeInstanceOf(CircuitOpenError);
  });

  it("failures: 0 turns it off", async () => {
    const b = new Breaker("svc", { failures: 0, probeAfterMs: 1000 }, () => true);
    for (let i = 0; i < 10; i++) await expect(b.run(async () => { throw new Timeout(); })).rejects.toBeInstanceOf(Timeout);
    expect(b.open).toBe(false);
  });

  it("reads CIRCUIT_BREAKER_FAILURES and CIRCUIT_BREAKER_PROBE_MS, with defaults", () => {
    expect(readBreakerOptions({})).toEqual({ failures: 5, probeAfterMs: 1000 });
    expect(readBreakerOptions({ CIRCUIT_BREAKER_FAILURES: "0", CIRCUIT_BREAKER_PROBE_MS: "2500" })).toEqual({ failures: 0, probeAfterMs: 2500 });
    expect(() => readBreakerOptions({ CIRCUIT_BREAKER_PROBE_MS: "0" })).toThrow(/CIRCUIT_BREAKER_PROBE_MS/);
  });
});
