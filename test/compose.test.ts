// Static checks of the deployment files (no Docker engine runs in CI): docker-compose.yml
// linted by dclint and validated against the Compose Specification schema dclint ships, plus the
// wiring between compose, the Dockerfile, deploy/nginx.conf, deploy/healthcheck.mjs and package.json.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { GATEWAY, SERVICES, urlVariable } from "@permits/gateway/services";
// Ajv draft-07 (named export: same class as the default, and typed correctly under NodeNext).
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS: depending on the loader, the default import is the plugin itself
// or its module object; its `default` property is the plugin in both cases.
const addFormats = addFormatsModule.default ?? addFormatsModule;

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// The Compose Specification's JSON schema, as the pinned dclint package carries it.
const requireHere = createRequire(import.meta.url);
const schemaPath = path.join(path.dirname(requireHere.resolve("dclint/package.json")), "schemas/compose.schema.json");
const read = (rel: string) => readFileSync(path.join(repoRoot, rel), "utf8");

const SERVICE_NAMES = SERVICES.map((s) => s.name);
const APP_ROLES = [GATEWAY.name, ...SERVICE_NAMES];
const URL_VARS = SERVICE_NAMES.map(urlVariable);

type Service = {
  image?: string;
  build?: unknown;
  command?: string | string[];
  environment?: Record<string, unknown> | string[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  deploy?: { replicas?: number | string };
  ports?: unknown[];
  volumes?: unknown[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  networks?: string[] | Record<string, { ipv4_address?: string } | null>;
};
type Compose = { services: Record<string, Service>; networks?: Record<string, unknown> };

let compose: Compose;
let services: Record<string, Service>;
const scripts: Record<string, string> = JSON.parse(read("package.json")).scripts;

/** environment as a map, for both the mapping and the KEY=VALUE list forms */
function env(svc: Service): Record<string, string> {
  const e = svc.environment ?? {};
  if (Array.isArray(e)) {
    return Object.fromEntries(
      e.map((kv) => {
        const i = kv.indexOf("=");
        return i < 0 ? [kv, ""] : [kv.slice(0, i), kv.slice(i + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v == null ? "" : String(v)]));
}

function words(v: string | string[] | undefined): string[] {
  if (v === undefined) return [];
  return Array.isArray(v) ? v.map(String) : v.trim().split(/\s+/);
}

/** role the container starts: `start:<role>` in its command, else its ROLE variable */
function roleOf(svc: Service): string | undefined {
  for (const w of words(svc.command)) {
    const m = /^start:([\w-]+)$/.exec(w);
    if (m) return m[1];
  }
  return env(svc).ROLE || undefined;
}

beforeAll(() => {
  compose = parse(read("docker-compose.yml"), { merge: true }) as Compose;
  services = compose?.services ?? {};
});

describe("docker-compose.yml", () => {
  it("passes dclint with the project's settings (.dclintrc), warnings included", () => {
    const bin = path.join(path.dirname(requireHere.resolve("dclint/package.json")), "bin/dclint.cjs");
    const run = spawnSync(process.execPath, [bin, "--max-warnings", "0", "--color", "false", "docker-compose.yml"], { cwd: repoRoot, encoding: "utf8" });
    expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
  });

  it("is valid against the Compose Specification schema", () => {
    const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    // The schema names its meta-schema "https://json-schema.org/draft-07/schema"; Ajv knows
    // draft-07 as "http://json-schema.org/draft-07/schema#". Register it under that alias too,
    // so the schema itself is still meta-validated.
    const draft07 = requireHere("ajv/dist/refs/json-schema-draft-07.json");
    if (typeof schema.$schema === "string" && !ajv.getSchema(schema.$schema)) {
      ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
    }
    const validate = ajv.compile(schema);
    const ok = validate(compose);
    expect(validate.errors ?? [], ajv.errorsText(validate.errors)).toEqual([]);
    expect(ok).toBe(true);
  });

  it("defines redis, postgres, every service of the gateway's list, the gateway and the proxy", () => {
    expect(Object.keys(services).sort()).toEqual([...APP_ROLES, "postgres", "proxy", "redis"].sort());
  });

  it("gives every service a healthcheck", () => {
    for (const [name, svc] of Object.entries(services)) {
      expect(svc.healthcheck, `${name} has no healthcheck`).toBeDefined();
      expect(svc.healthcheck?.disable, `${name} disables its healthcheck`).not.toBe(true);
      expect(words(svc.healthcheck?.test).length, `${name} healthcheck has no test`).toBeGreaterThan(1);
    }
    expect(words(services.redis.healthcheck?.test)).toEqual(expect.arrayContaining(["redis-cli", "ping"]));
    expect(words(services.postgres.healthcheck?.test)).toEqual(["CMD", "pg_isready", "--username=permits", "--dbname=permits"]);
  });

  it("starts each app role with an existing start:<role> script and probes it via healthcheck.mjs", () => {
    const started = new Set<string>();
    for (const [name, svc] of Object.entries(services)) {
      if (svc.build === undefined) continue; // redis, postgres, proxy: stock images
      const role = roleOf(svc);
      expect(role, `${name} starts no role`).toBeDefined();
      expect(scripts, `${name}: no start:${role} script`).toHaveProperty(`start:${role}`);
      expect(words(svc.command)).not.toContain("start"); // npm start rebuilds
      started.add(role!);
      const e = env(svc);
      expect(e.HOST, `${name} HOST`).toBe("0.0.0.0");
      expect(e.PORT, `${name} PORT`).toMatch(/^\d+$/);
      const test = words(svc.healthcheck?.test);
      expect(test, `${name} healthcheck`).toContain("deploy/healthcheck.mjs");
      expect(test[test.length - 1], `${name} healthcheck role`).toBe(role);
    }
    expect([...started].sort()).toEqual([...APP_ROLES].sort());
    for (const role of SERVICE_NAMES) {
      expect(roleOf(services[role]), `service ${role} runs its own role`).toBe(role);
    }
  });

  it("gives each service its own port, its manifest's default", () => {
    const ports = SERVICES.map((s) => env(services[s.name]).PORT);
    expect(ports).toEqual(SERVICES.map((s) => String(s.port)));
    expect(new Set(ports).size).toBe(ports.length);
  });

  it("replicates the gateway and wires every service URL, and no Redis (it keeps no state; Redis would only join its /readyz)", () => {
    const gw = services.gateway;
    expect(Number(gw.deploy?.replicas)).toBeGreaterThanOrEqual(2);
    expect(gw.ports ?? [], "replicated gateway must not publish a fixed host port").toEqual([]);
    expect(gw, "replicas cannot share a container_name").not.toHaveProperty("container_name");
    const e = env(gw);
    expect(e.PORT).toBe(String(GATEWAY.port));
    for (const v of URL_VARS) {
      expect(e[v], `gateway ${v}`).toBeTruthy();
      const url = new URL(e[v]);
      const host = url.hostname;
      expect(Object.keys(services), `${v} host ${host} is not a compose service`).toContain(host);
      expect(url.port || "80", `${v} port`).toBe(env(services[host]).PORT);
      expect(url.protocol).toBe("http:");
    }
    expect(e, "the gateway's REDIS_URL would only add Redis to its /readyz").not.toHaveProperty("REDIS_URL");
    for (const s of ["ratelimit", "entitlement"]) expect(env(services[s]).REDIS_URL).toBe("redis://redis:6379");
    expect(e.TRUST_PROXY, "gateway TRUST_PROXY").toBeTruthy();
  });

  it("starts the gateway only after healthy dependencies", () => {
    const deps = services.gateway.depends_on;
    expect(deps && !Array.isArray(deps)).toBe(true);
    expect(deps).not.toHaveProperty("redis");
    for (const d of SERVICE_NAMES) {
      expect((deps as Record<string, { condition?: string }>)[d]?.condition, `gateway -> ${d}`).toBe(
        "service_healthy",
      );
    }
  });

  it("trusts exactly the proxy's address for forwarded headers", () => {
    const nets = services.proxy.networks;
    const fixed =
      nets && !Array.isArray(nets)
        ? Object.values(nets).map((n) => n?.ipv4_address).filter(Boolean)
        : [];
    const trust = env(services.gateway).TRUST_PROXY;
    expect(fixed.length).toBe(1);
    expect(trust, `TRUST_PROXY=${trust}, proxy at ${fixed}`).toBe(fixed[0]);
  });
});

describe("proxy", () => {
  it("publishes a port and mounts deploy/nginx.conf", () => {
    const proxy = services.proxy;
    expect(proxy.image).toMatch(/^nginx:/);
    expect(proxy.ports?.length ?? 0).toBeGreaterThan(0);
    const published = String(proxy.ports![0]);
    expect(published).toMatch(/:80$/);
    const mounts = (proxy.volumes ?? []).map(String);
    expect(mounts.some((m) => m.startsWith("./deploy/nginx.conf:/etc/nginx/"))).toBe(true);
  });

  it("nginx.conf answers /metrics itself with a 404 in the API's error shape: metrics are never proxied", () => {
    const conf = read("deploy/nginx.conf").replace(/#.*$/gm, "");
    const block = /location\s*=\s*\/metrics\s*\{([^}]*)\}/.exec(conf)?.[1] ?? "";
    expect(block).toMatch(/return 404 '\{"error":\{"code":"not_found"/);
    expect(block).not.toMatch(/proxy_pass/);
    // Each app container's metrics listener is on the backend network only (exposed, not published).
    for (const [role, port] of [GATEWAY, ...SERVICES].map((r) => [r.name, String(r.metricsPort)])) {
      expect([env(services[role]).METRICS_HOST, env(services[role]).METRICS_PORT], role).toEqual(["0.0.0.0", port]);
      expect((services[role] as { expose?: string[] }).expose, role).toContain(port);
    }
  });

  it("nginx.conf upstreams to gateway:8080 and forwards X-Forwarded-For and X-Request-Id", () => {
    const conf = read("deploy/nginx.conf").replace(/#.*$/gm, "");
    const upstream = /upstream\s+([\w-]+)\s*\{([^}]*)\}/.exec(conf);
    expect(upstream, "no upstream block").not.toBeNull();
    const [, name, body] = upstream!;
    expect(body).toMatch(/\bserver\s+gateway:8080\b/);
    expect(conf).toMatch(new RegExp(`proxy_pass\\s+http://${name}\\s*;`));
    expect(conf).toMatch(/listen\s+80\b/);
    expect(conf).toMatch(/proxy_set_header\s+X-Forwarded-For\s+\S+;/);
    expect(conf).toMatch(/proxy_set_header\s+X-Request-Id\s+\S+;/);
  });
});

describe("image", () => {
  it("Dockerfile is multi-stage, non-root, and defaults to the gateway", () => {
    const df = read("Dockerfile");
    const froms = df.match(/^FROM\s+\S+/gim) ?? [];
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f).toMatch(/node:24-bookworm-slim/);
    expect(df).toMatch(/npm ci/);
    expect(df).toMatch(/npm run build/);
    expect(df).toMatch(/npm prune --omit=dev/);
    expect(df).toMatch(/^USER\s+(?!root\b|0\b)\S+/m);
    expect(df).toMatch(/^ENV[\s\S]*HOST=0\.0\.0\.0/m);
    expect(df).toMatch(/NODE_ENV=production/);
    expect(df).toMatch(/^CMD\s+\["npm",\s*"run",\s*"start:gateway"\]/m);
    expect(df).not.toMatch(/"npm",\s*"start"/);
  });

  it("deploy/healthcheck.mjs exists and probes both health endpoints", () => {
    const p = path.join(repoRoot, "deploy/healthcheck.mjs");
    expect(existsSync(p)).toBe(true);
    const src = readFileSync(p, "utf8");
    expect(src).toContain("/grpc.health.v1.Health/Check");
    expect(src).toContain("/readyz");
    expect(src).toContain("SERVING");
  });

  it(".dockerignore keeps host node_modules, dist and build info out of the context", () => {
    const lines = read(".dockerignore").split("\n").map((l) => l.trim());
    for (const pat of ["**/node_modules", "**/dist", "**/*.tsbuildinfo"]) expect(lines).toContain(pat);
  });
});

describe("service-to-service credentials", () => {
  it("gives every service its token list and the gateway its token, as Compose secrets", () => {
    const doc = parse(read("docker-compose.yml")) as Compose & { secrets?: Record<string, { environment?: string }> };
    expect(doc.secrets).toEqual({ internal_tokens: { environment: "INTERNAL_TOKENS" }, gateway_token: { environment: "GATEWAY_TOKEN" } });
    for (const role of SERVICE_NAMES) {
      const svc = doc.services[role] as Service & { secrets?: string[] };
      expect(svc.secrets, role).toEqual(["internal_tokens"]);
      expect((svc.environment as Record<string, unknown>).INTERNAL_TOKENS_FILE, role).toBe("/run/secrets/internal_tokens");
    }
    const gw = doc.services.gateway as Service & { secrets?: string[] };
    expect(gw.secrets).toEqual(["gateway_token"]);
    expect((gw.environment as Record<string, unknown>).GATEWAY_TOKEN_FILE).toBe("/run/secrets/gateway_token");
  });

  it("refuses to start without LEGACY_KEY_SECRET, and .env.example shows every secret to set", () => {
    const raw = read("docker-compose.yml");
    const uses = raw.match(/LEGACY_KEY_SECRET: .*/g) ?? [];
    expect(uses.length).toBeGreaterThan(0);
    // ${VAR:?message}: Compose stops with the message when the variable is unset or empty.
    for (const u of uses) expect(u).toMatch(/^LEGACY_KEY_SECRET: \$\{LEGACY_KEY_SECRET:\?[^}]*\.env\.example[^}]*\}$/);
    const example = read(".env.example");
    for (const name of ["LEGACY_KEY_SECRET", "INTERNAL_TOKENS", "GATEWAY_TOKEN"]) expect(example).toMatch(new RegExp(`^${name}=`, "m"));
    expect(read(".gitignore").split("\n")).toContain(".env");
    expect(read(".dockerignore").split("\n")).toContain(".env");
  });

  it("runs Redis with AOF persistence on a volume", () => {
    const redis = parse(read("docker-compose.yml")).services.redis as Service & { volumes?: string[] };
    expect(redis.command).toEqual(["redis-server", "--appendonly", "yes"]);
    expect(redis.volumes).toEqual(["redis-data:/data"]);
  });

  it("runs PostgreSQL 15 on a volume, its password required, and the sites service on it once it is healthy", () => {
    const doc = parse(read("docker-compose.yml")) as Compose;
    const pg = doc.services.postgres;
    expect(pg.image).toBe("postgres:15");
    expect(pg.volumes).toEqual(["postgres-data:/var/lib/postgresql/data"]);
    expect((doc as { volumes?: Record<string, unknown> }).volumes).toHaveProperty("postgres-data");
    expect(pg.ports ?? [], "the database is on the backend network only").toEqual([]);
    const required = "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required (the sites service's database); copy .env.example to .env and set it}";
    expect(env(pg)).toMatchObject({ POSTGRES_USER: "permits", POSTGRES_DB: "permits", POSTGRES_PASSWORD: required });
    const sites = doc.services.sites;
    const url = new URL(env(sites).DATABASE_URL.replace(required, "PASSWORD"));
    expect([url.protocol, url.username, url.password, url.hostname, url.port, url.pathname]).toEqual(["postgres:", "permits", "PASSWORD", "postgres", "5432", "/permits"]);
    expect(env(sites).STATE_DIR, "sites keeps nothing on the container's disk").toBeUndefined();
    expect(sites.depends_on).toEqual({ postgres: { condition: "service_healthy" } });
    expect(read(".env.example")).toMatch(/^POSTGRES_PASSWORD=$/m);
  });
});
