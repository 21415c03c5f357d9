import net from "node:net";
import { once } from "node:events";
import { Counter, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { ConfigError, createLogger } from "@permits/runtime";
import { listenMetrics, readMetricsListener } from "./metrics-listener.js";

const logger = createLogger("test", { level: "silent" });

describe("the metrics listener", () => {
  it("defaults to loopback and the role's port; METRICS_PORT and METRICS_HOST override", () => {
    expect(readMetricsListener({}, 9701)).toEqual({ host: "127.0.0.1", port: 9701, explicit: false });
    expect(readMetricsListener({ METRICS_PORT: "0", METRICS_HOST: "0.0.0.0" }, 9701)).toEqual({ host: "0.0.0.0", port: 0, explicit: true });
    expect(() => readMetricsListener({ METRICS_PORT: "70000" }, 9701)).toThrow(/METRICS_PORT/);
    expect(() => readMetricsListener({ METRICS_PORT: "nine" }, 9701)).toThrow(/METRICS_PORT/);
  });

  it("serves GET /metrics from the registry and 404 for anything else", async () => {
    const registry = new Registry();
    new Counter({ name: "probe_total", help: "a probe", registers: [registry] }).inc(3);
    const l = await listenMetrics(registry, { host: "127.0.0.1", port: 0, explicit: true }, logger);
    try {
      const res = await fetch(`http://127.0.0.1:${l.port}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await res.text()).toContain("probe_total 3");
      for (const path of ["/", "/api/v1", "/metrics/x"]) expect((await fetch(`http://127.0.0.1:${l.port}${path}`)).status, path).toBe(404);
      expect((await fetch(`http://127.0.0.1:${l.port}/metrics`, { method: "POST" })).status).toBe(404);
    } finally {
      await l.close();
    }
  });

  it("a port that is taken: set explicitly, a ConfigError naming METRICS_PORT; the default, a warning and no listener", async () => {
    const holder = net.createServer().listen(0, "127.0.0.1");
    await once(holder, "listening");
    const port = (holder.address() as net.AddressInfo).port;
    try {
      await expect(listenMetrics(new Registry(), { host: "127.0.0.1", port, explicit: true }, logger)).rejects.toThrow(ConfigError);
      await expect(listenMetrics(new Registry(), { host: "127.0.0.1", port, explicit: true }, logger)).rejects.toThrow(`cannot listen on 127.0.0.1:${port} for metrics (EADDRINUSE); set METRICS_PORT (or METRICS_HOST) to a free address`);
      const fallback = await listenMetrics(new Registry(), { host: "127.0.0.1", port, explicit: false }, logger);
      expect(fallback.port).toBeUndefined();
      await fallback.close();
    } finally {
      holder.close();
    }
  });
});
