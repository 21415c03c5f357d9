// The list of services (gateway/src/services.ts) and what each manifest says: the defaults every
// deployment file and document repeats are pinned here once; the other tests iterate the list.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { GATEWAY, SERVICES, urlVariable } from "@permits/gateway/services";
import { scopesOf } from "@permits/rpc";
import { ensureBuilt } from "./support/processes.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const scripts = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>;

describe("the list of services", () => {
  it("keeps the four first services' ports, metrics ports, and whether the embedded gateway serves them to internal callers", () => {
    expect(SERVICES.slice(0, 4).map((s) => [s.name, s.service.typeName, s.port, s.metricsPort, s.servedOnGatewayPort, s.heapGrowingPercent])).toEqual([
      ["stormwater", "permits.stormwater.v1.StormwaterService", 7001, 9701, true, undefined],
      ["nwp", "permits.nwp.v1.NwpService", 7002, 9702, true, 0],
      ["entitlement", "permits.entitlement.v1.EntitlementService", 7003, 9703, false, undefined],
      ["ratelimit", "permits.ratelimit.v1.RateLimitService", 7004, 9704, false, undefined],
    ]);
    expect([GATEWAY.name, GATEWAY.port, GATEWAY.metricsPort]).toEqual(["gateway", 8080, 9080]);
    expect(SERVICES.slice(0, 4).map((s) => urlVariable(s.name))).toEqual(["STORMWATER_URL", "NWP_URL", "ENTITLEMENT_URL", "RATELIMIT_URL"]);
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

  it("is documented: docs/configuration.md gives each role's PORT and METRICS_PORT and each service's <NAME>_URL", () => {
    const doc = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8").split("\n");
    const defaults = (variable: string) => {
      const cell = doc.find((l) => l.startsWith(`| \`${variable}\` |`))?.split("|")[2] ?? "";
      return Object.fromEntries([...cell.matchAll(/(\w+) `(\d+)`/g)].map((m) => [m[1], Number(m[2])]));
    };
    const roles = [GATEWAY, ...SERVICES];
    expect(defaults("PORT")).toEqual(Object.fromEntries(roles.map((r) => [r.name, r.port])));
    expect(defaults("METRICS_PORT")).toEqual(Object.fromEntries(roles.map((r) => [r.name, r.metricsPort])));
    const urlRow = doc.find((l) => l.startsWith(`| \`${urlVariable(SERVICES[0].name)}\``)) ?? "";
    for (const s of SERVICES) expect(urlRow, s.name).toContain(`\`${urlVariable(s.name)}\``);
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

  it("is cheap to import: the built list loads the manifests and their protos, no service's build, dataset or store", () => {
    ensureBuilt();
    // Records every module the import resolves (module.registerHooks, Node >= 22.15).
    const probe = `import { registerHooks } from "node:module";
      const loaded = [];
      registerHooks({ resolve: (s, c, next) => { const r = next(s, c); loaded.push(r.url); return r; } });
      await import(${JSON.stringify(pathToFileURL(path.join(ROOT, "gateway/dist/services.js")).href)});
      console.log(JSON.stringify(loaded));`;
    const loaded = (JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" })) as string[]).map((u) => path.relative(ROOT, fileURLToPath(u)));
    const ours = [...new Set(loaded.filter((f) => !f.startsWith("node_modules/@bufbuild/protobuf/")))].sort();
    expect(ours).toEqual(["gateway/dist/services.js", ...SERVICES.map((s) => `services/${s.name}/dist/manifest.js`), ...new Set(SERVICES.flatMap((s) => [s.service.file, ...s.service.file.dependencies]).map((f) => `proto/dist/${f.name}_pb.js`))].filter((f) => !f.startsWith("proto/dist/google/")).sort());
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
