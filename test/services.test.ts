// The list of services (gateway/src/services.ts) and what each manifest says: the defaults every
// deployment file and document repeats are pinned here once; the other tests iterate the list.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GATEWAY, SERVICES, urlVariable } from "@permits/gateway/services";
import { scopesOf } from "@permits/rpc";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const scripts = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;

describe("the list of services", () => {
  it("holds the four services with their ports, metrics ports and whether the embedded gateway serves them to internal callers", () => {
    expect(SERVICES.map((s) => [s.name, s.service.typeName, s.port, s.metricsPort, s.servedOnGatewayPort, s.heapGrowingPercent])).toEqual([
      ["stormwater", "permits.stormwater.v1.StormwaterService", 7001, 9701, true, undefined],
      ["nwp", "permits.nwp.v1.NwpService", 7002, 9702, true, 0],
      ["entitlement", "permits.entitlement.v1.EntitlementService", 7003, 9703, false, undefined],
      ["ratelimit", "permits.ratelimit.v1.RateLimitService", 7004, 9704, false, undefined],
    ]);
    expect([GATEWAY.name, GATEWAY.port, GATEWAY.metricsPort]).toEqual(["gateway", 8080, 9080]);
    expect(SERVICES.map((s) => urlVariable(s.name))).toEqual(["STORMWATER_URL", "NWP_URL", "ENTITLEMENT_URL", "RATELIMIT_URL"]);
  });

  it("gives every role its own name and ports", () => {
    const roles = [GATEWAY, ...SERVICES];
    for (const key of ["name", "port", "metricsPort"] as const) expect(new Set(roles.map((r) => r[key])).size, key).toBe(roles.length);
    expect(new Set(roles.flatMap((r) => [r.port, r.metricsPort])).size).toBe(2 * roles.length);
    for (const s of SERVICES) expect(s.name).toMatch(/^[a-z]+$/);
  });

  it("starts each service with `npm run start:<name>`, which runs its package's main", () => {
    for (const s of SERVICES) expect(scripts[`start:${s.name}`], s.name).toMatch(new RegExp(`^node --max-semi-space-size=\\d+ services/${s.name}/dist/main\\.js$`));
  });

  it("ships each service in the image: the Dockerfile copies its package.json and built output, and exposes its port", () => {
    const dockerfile = readFileSync(path.join(ROOT, "Dockerfile"), "utf8");
    const exposed = [...dockerfile.matchAll(/^EXPOSE (.+)$/gm)].flatMap((m) => m[1].trim().split(/\s+/).map(Number));
    for (const s of SERVICES) {
      for (const line of [`COPY services/${s.name}/package.json services/${s.name}/`, `COPY --from=build /app/services/${s.name}/package.json services/${s.name}/`, `COPY --from=build /app/services/${s.name}/dist services/${s.name}/dist`]) {
        expect(dockerfile.split("\n"), s.name).toContain(line);
      }
      expect(exposed, s.name).toContain(s.port);
    }
  });

  it("names, for every RPC of every service, the callers it admits (permits.common.v1.callers)", () => {
    for (const s of SERVICES) for (const m of s.service.methods) expect(scopesOf(m).length, `${s.service.typeName}/${m.name}`).toBeGreaterThan(0);
  });

  it("leaves the shared plumbing naming no service: the token check, the metrics listener, the standalone host", () => {
    for (const file of ["packages/rpc/src/interceptors/internal-auth.ts", "packages/rpc/src/server/metrics-listener.ts", "packages/rpc/src/server/standalone.ts"]) {
      const source = readFileSync(path.join(ROOT, file), "utf8");
      for (const s of SERVICES) expect(source, `${file} names ${s.name}`).not.toMatch(new RegExp(`\\b(${s.name}|${s.service.name}|${s.port}|${s.metricsPort})\\b`, "i"));
    }
  });
});
