// Static checks of the Kubernetes deployment (no cluster in CI): render deploy/k8s with kubectl's
// kustomize, validate every object against the Kubernetes schemas (kubernetes-models: validate()
// for values, its TypeScript types for fields the API does not have), then check the wiring
// against docs/configuration.md, the Dockerfile, docker-compose.yml, package.json and bench/results.json.
// Every check returns its problems, so the last block can show each one failing on a mutation.
import { GATEWAY, SERVICES as MANIFESTS, urlVariable } from "@permits/gateway/services";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const read = (rel: string) => readFileSync(path.join(ROOT, rel), "utf8");

const ROLES = [GATEWAY.name, ...MANIFESTS.map((m) => m.name)];
type Role = (typeof ROLES)[number];
const SERVICES = ROLES.filter((r) => r !== "gateway");
/** Each role's METRICS_PORT when unset. */
const METRICS_PORTS: Record<Role, number> = Object.fromEntries([GATEWAY, ...MANIFESTS].map((r) => [r.name, r.metricsPort]));
/** The kinds the deployment may contain; "apiVersion/kind" is also the kubernetes-models module path. */
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  "apps/v1/Deployment": Deployment,
  "v1/Service": Service,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "apps/v1/StatefulSet": StatefulSet,
};
/** Variables each role must get here, beyond HOST and PORT (docs/configuration.md): every service its callers' tokens, and these their own. */
const OWN_ENV: Partial<Record<Role, string[]>> = {
  gateway: ["GATEWAY_TOKEN_FILE", ...MANIFESTS.map((m) => urlVariable(m.name)), "TRUST_PROXY"],
  // Replicas share keys and counts only through Redis; document 2 keys need the real secret.
  entitlement: ["REDIS_URL", "LEGACY_KEY_SECRET"],
  ratelimit: ["REDIS_URL"],
  // The records are in PostgreSQL, shared by every replica.
  sites: ["DATABASE_URL"],
};
const requiredEnv = (role: Role) => [...(role === "gateway" ? [] : ["INTERNAL_TOKENS_FILE"]), ...(OWN_ENV[role] ?? [])];
/** Variables no pod may get: local state (pods are stateless), a frozen clock, secrets as plain values. */
const FORBIDDEN_ENV = ["STATE_DIR", "EVALUATION_DATE", "INTERNAL_TOKENS", "GATEWAY_TOKEN"];
const GATEWAY_CALLS_PER_REQUEST = 6; // the drain budget of deploy/k8s/base/gateway.yaml

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; [k: string]: any };
type Env = { name: string; value?: string; valueFrom?: any };
const id = (o: Obj) => `${o.kind} ${o.metadata?.name}`;
const deployments = (objs: Obj[]) => objs.filter((o) => o.kind === "Deployment");
const ofKind = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);
const podSpec = (d: Obj) => d.spec.template.spec;
const container = (d: Obj) => podSpec(d).containers[0];
const roleOf = (d: Obj) => d.spec?.template?.metadata?.labels?.["app.kubernetes.io/component"] as Role;
const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const envOf = (d: Obj): Env[] => container(d).env ?? [];

function render(dir: string): Obj[] {
  let out: string;
  try {
    out = execFileSync("kubectl", ["kustomize", path.join(ROOT, dir)], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (e: any) {
    if (e.code === "ENOENT") throw new Error("kubectl is not installed or not on PATH: this test renders deploy/k8s with `kubectl kustomize` (kubectl >= 1.27, kustomize v5); install kubectl");
    throw new Error(`kubectl kustomize ${dir} failed:\n${e.stderr}`);
  }
  const objs: Obj[] = parseAllDocuments(out).map((d) => d.toJS()).filter(Boolean);
  // kustomize folds a generated Secret's long base64 values onto several lines, which the API
  // server's decoder skips and the schema's "byte" format does not.
  for (const o of ofKind(objs, "Secret")) for (const k of Object.keys(o.data ?? {})) o.data[k] = String(o.data[k]).replace(/\s+/g, "");
  return objs;
}

// ------------------------------------------------------------------------------------------
// What the other files say

/** docs/configuration.md's table: variable -> its "Used by" cell ("as above" resolved). */
function readmeVariables(readme: string): Map<string, string> {
  const section = readme.split(/^# Configuration$/m)[1].split(/^## /m)[0];
  const vars = new Map<string, string>();
  let previous = "";
  for (const line of section.split("\n").filter((l) => l.startsWith("| `"))) {
    const cells = line.split("|").map((c) => c.trim());
    const usedBy = cells[3] === "as above" ? previous : cells[3];
    for (const m of cells[1].matchAll(/`([A-Z][A-Z0-9_]*)`/g)) vars.set(m[1], usedBy);
    previous = usedBy;
  }
  return vars;
}

/** docs/configuration.md's PORT defaults ("gateway `8080`; stormwater `7001`, ..."). */
function readmePorts(readme: string): Record<string, number> {
  const row = readme.split("\n").find((l) => l.startsWith("| `PORT` |"));
  return Object.fromEntries([...(row?.split("|")[2] ?? "").matchAll(/(\w+) `(\d+)`/g)].map((m) => [m[1], Number(m[2])]));
}

/** Mebibytes of a Kubernetes memory quantity. */
function mib(q: string | undefined): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|k|M|G)?$/.exec(q ?? "");
  if (!m) return NaN;
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, k: 1e3, M: 1e6, G: 1e9, "": 1 }[m[2] ?? ""]!;
  return (Number(m[1]) * unit) / 2 ** 20;
}

// ------------------------------------------------------------------------------------------
// Checks: each returns its problems, empty when the objects are right.

function schemaProblems(objs: Obj[]): string[] {
  return objs.flatMap((o) => {
    const Model = MODELS[`${o.apiVersion}/${o.kind}`];
    if (!Model) return [`${o.apiVersion} ${id(o)}: a kind this test does not know (add its model and checks)`];
    try {
      new Model(o).validate();
      return [];
    } catch (e) {
      return [`${id(o)}: ${(e as Error).message}`];
    }
  });
}

/**
 * Fields the Kubernetes API does not have (validate() accepts them; the API server would drop
 * them): each object, as an object literal typed with its kubernetes-models interface, must pass
 * TypeScript's excess-property check. One in-memory program for all objects.
 */
function unknownFieldProblems(objs: Obj[]): string[] {
  const known = objs.filter((o) => MODELS[`${o.apiVersion}/${o.kind}`]);
  const keys = [...new Set(known.map((o) => `${o.apiVersion}/${o.kind}`))];
  const file = path.join(ROOT, "test/__k8s_rendered__.ts");
  const source = [
    ...keys.map((k, i) => `import type { I${k.split("/").pop()} as T${i} } from "kubernetes-models/${k}";`),
    ...known.map((o, i) => `export const o${i}: T${keys.indexOf(`${o.apiVersion}/${o.kind}`)} = ${JSON.stringify(o)};`),
  ].join("\n");
  const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: true, types: [], target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists } = host;
  host.getSourceFile = (f, lang, ...rest) => (path.resolve(f) === file ? ts.createSourceFile(f, source, lang) : getSourceFile.call(host, f, lang, ...rest));
  host.fileExists = (f) => path.resolve(f) === file || fileExists.call(host, f);
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line - keys.length : -1;
    return `${known[line] ? id(known[line]) : "(import)"}: ${ts.flattenDiagnosticMessageText(d.messageText, " ")}`;
  });
}

interface Expected {
  image: string;
  ports: Record<string, number>;
  scripts: Record<string, string>;
  dockerfile: string;
  variables: Map<string, string>;
  secretKeys: string[];
  secretName: string;
  minMemoryMiB: number;
  runAsUser: number;
  serviceGraceS: number;
  gatewayGraceS: number;
}

function workloadProblems(objs: Obj[], x: Expected): string[] {
  const p: string[] = [];
  const roles = deployments(objs).map(roleOf);
  if ([...roles].sort().join() !== [...ROLES].sort().join()) p.push(`Deployments for ${roles.join(", ")}; expected one per role: ${ROLES.join(", ")}`);
  for (const d of deployments(objs)) {
    const role = roleOf(d);
    const c = container(d);
    const spec = podSpec(d);
    if (spec.containers.length !== 1) p.push(`${role}: ${spec.containers.length} containers, expected 1`);
    if (c.image !== x.image) p.push(`${role}: image ${c.image}, expected ${x.image}`);
    const script = x.scripts[`start:${role}`];
    if (c.command?.join(" ") !== script) p.push(`${role}: command ${JSON.stringify(c.command)}, expected the start:${role} script "${script}"`);
    // In a pod, Node sizes V8's young generation from the memory limit (a 576 MiB limit gives a
    // quarter of the benchmarked size), so every role sets it as the benchmark ran it.
    if (!c.command?.some((w: string) => /^--max-semi-space-size=\d+$/.test(w))) p.push(`${role}: the command does not set --max-semi-space-size`);
    const dist = script?.split(" ").at(-1)?.split("/dist/")[0];
    if (!x.dockerfile.includes(`COPY --from=build /app/${dist}/dist ${dist}/dist`)) p.push(`${role}: the Dockerfile does not copy ${dist}/dist`);
    const port = x.ports[role];
    // The public port, then the metrics listener's (METRICS_PORT), which the scrape annotation names.
    const metricsPort = METRICS_PORTS[role];
    if (c.ports?.length !== 2 || c.ports[0].containerPort !== port || c.ports[1].name !== "metrics" || c.ports[1].containerPort !== metricsPort) p.push(`${role}: container ports ${JSON.stringify(c.ports)}, expected ${port} and metrics ${metricsPort}`);
    const scrape = d.spec.template.metadata?.annotations ?? {};
    if (scrape["prometheus.io/port"] !== String(metricsPort) || scrape["prometheus.io/path"] !== "/metrics") p.push(`${role}: scrape annotations ${JSON.stringify(scrape)}, expected /metrics on ${metricsPort}`);
    const env = Object.fromEntries(envOf(d).map((e) => [e.name, e]));
    if (env.PORT?.value !== String(port)) p.push(`${role}: PORT ${env.PORT?.value}, expected ${port}`);
    if (env.HOST?.value !== "0.0.0.0") p.push(`${role}: HOST ${env.HOST?.value}, expected 0.0.0.0`);
    if (env.METRICS_HOST?.value !== "0.0.0.0" || env.METRICS_PORT?.value !== String(metricsPort)) p.push(`${role}: METRICS_HOST ${env.METRICS_HOST?.value} METRICS_PORT ${env.METRICS_PORT?.value}, expected 0.0.0.0 and ${metricsPort}`);
    if (d.spec.replicas !== undefined) p.push(`${role}: spec.replicas is set; its HPA owns the count`);
    for (const name of Object.keys(env)) {
      const usedBy = x.variables.get(name);
      if (usedBy === undefined) p.push(`${role}: ${name} is not in the configuration table (docs/configuration.md)`);
      else if (!new RegExp(`\\b(all|${role})\\b`).test(usedBy)) p.push(`${role}: ${name} is documented for "${usedBy}", not ${role}`);
      if (FORBIDDEN_ENV.includes(name)) p.push(`${role}: ${name} must not be set here`);
    }
    if (role === "gateway" && env.REDIS_URL) p.push("gateway: REDIS_URL would put Redis into /readyz: a Redis outage would unready every gateway");
    for (const name of requiredEnv(role)) if (!env[name]) p.push(`${role}: ${name} is missing`);
    p.push(...probeProblems(role, c, port), ...podProblems(role, d, x));
  }
  const requested = deployments(objs).reduce((s, d) => s + mib(container(d).resources?.requests?.memory), 0);
  if (!(requested >= x.minMemoryMiB)) p.push(`memory requests sum to ${requested} Mi, below 1.25 x the bench's distributed peak RSS (${x.minMemoryMiB} Mi)`);
  return p;
}

/** Hardening, statelessness, shutdown and resources of one pod. */
function podProblems(role: Role, d: Obj, x: Expected): string[] {
  const p: string[] = [];
  const c = container(d);
  const spec = podSpec(d);
  const sc = spec.securityContext ?? {};
  const csc = c.securityContext ?? {};
  if (sc.runAsNonRoot !== true || sc.runAsUser !== x.runAsUser) p.push(`${role}: must run as non-root uid ${x.runAsUser} (the image's node user)`);
  if (csc.readOnlyRootFilesystem !== true || csc.allowPrivilegeEscalation !== false || !csc.capabilities?.drop?.includes("ALL")) p.push(`${role}: container must have a read-only root, no privilege escalation, capabilities dropped`);
  if (spec.automountServiceAccountToken !== false) p.push(`${role}: mounts a service account token`);
  for (const v of spec.volumes ?? []) if (!v.secret) p.push(`${role}: volume ${v.name} is not a Secret (pods keep no state)`);
  const sleep = c.lifecycle?.preStop?.exec?.command;
  const pause = sleep?.[0] === "sleep" ? Number(sleep[1]) : NaN;
  if (!(pause > 0)) p.push(`${role}: no preStop sleep`);
  const drain = role === "gateway" ? x.gatewayGraceS : x.serviceGraceS;
  if (!(spec.terminationGracePeriodSeconds >= pause + drain)) p.push(`${role}: terminationGracePeriodSeconds ${spec.terminationGracePeriodSeconds} < preStop ${pause} s + drain ${drain} s`);
  // Resources.
  const r = c.resources ?? {};
  if (!r.requests?.cpu || !r.requests?.memory || !r.limits?.memory) p.push(`${role}: needs cpu and memory requests and a memory limit`);
  else if (mib(r.limits.memory) !== 2 * mib(r.requests.memory)) p.push(`${role}: memory limit ${r.limits.memory} is not twice the request ${r.requests.memory}`);
  if (r.limits?.cpu) p.push(`${role}: has a CPU limit (see resources.yaml: none on purpose)`);
  return p;
}

function probeProblems(role: Role, c: any, port: number): string[] {
  const p: string[] = [];
  const portOf = (q: string | number) => (typeof q === "number" ? q : c.ports?.find((cp: any) => cp.name === q)?.containerPort);
  const want: Record<string, string> = { startupProbe: "/healthz", readinessProbe: "/readyz", livenessProbe: "/healthz" };
  for (const probe of Object.keys(want)) {
    const pr = c[probe];
    if (role === "gateway") {
      if (pr?.httpGet?.path !== want[probe] || portOf(pr.httpGet.port) !== port) p.push(`gateway: ${probe} is ${JSON.stringify(pr)}, expected GET ${want[probe]} on ${port}`);
    } else if (pr?.grpc?.port !== port || (pr.grpc.service ?? "") !== "") p.push(`${role}: ${probe} is ${JSON.stringify(pr)}, expected gRPC health on ${port}`);
  }
  return p;
}

/** One Service, HPA and PDB per Deployment, each selecting or targeting that Deployment alone. */
function pairingProblems(objs: Obj[], x: Expected): string[] {
  const p: string[] = [];
  const pods = deployments(objs).map((d) => ({ d, role: roleOf(d), labels: d.spec.template.metadata.labels as Record<string, string> }));
  for (const o of [...ofKind(objs, "Service"), ...ofKind(objs, "PodDisruptionBudget")]) {
    const selector = o.kind === "Service" ? o.spec.selector : o.spec.selector?.matchLabels;
    const hit = pods.filter((q) => selects(selector, q.labels));
    if (hit.length !== 1) p.push(`${id(o)} selects the pods of ${hit.length} Deployments`);
  }
  for (const { d, role, labels } of pods) {
    if (!selects(d.spec.selector?.matchLabels, labels)) p.push(`${role}: the Deployment's selector does not match its pod labels`);
    const services = ofKind(objs, "Service").filter((s) => selects(s.spec.selector, labels));
    const pdbs = ofKind(objs, "PodDisruptionBudget").filter((b) => selects(b.spec.selector?.matchLabels, labels));
    const hpas = ofKind(objs, "HorizontalPodAutoscaler").filter((h) => h.spec.scaleTargetRef?.kind === "Deployment" && h.spec.scaleTargetRef?.name === d.metadata.name);
    if (services.length !== 1 || pdbs.length !== 1 || hpas.length !== 1) {
      p.push(`${role}: ${services.length} Services, ${hpas.length} HPAs, ${pdbs.length} PDBs; expected one each`);
      continue;
    }
    const [svc, hpa, pdb] = [services[0], hpas[0], pdbs[0]];
    const sp = svc.spec.ports ?? [];
    const target = container(d).ports?.find((cp: any) => cp.name === sp[0]?.targetPort || cp.containerPort === sp[0]?.targetPort);
    if (svc.metadata.name !== role || sp.length !== 1 || sp[0].port !== x.ports[role] || target?.containerPort !== x.ports[role]) p.push(`${role}: Service ${svc.metadata.name} ports ${JSON.stringify(sp)}, expected ${role}:${x.ports[role]} to the container's port`);
    if (hpa.spec.scaleTargetRef.apiVersion !== "apps/v1") p.push(`${role}: HPA targets ${hpa.spec.scaleTargetRef.apiVersion}`);
    if (!(hpa.spec.minReplicas >= 2 && hpa.spec.maxReplicas > hpa.spec.minReplicas)) p.push(`${role}: HPA ${hpa.spec.minReplicas}..${hpa.spec.maxReplicas}; expected at least 2 and room to grow`);
    const cpu = hpa.spec.metrics?.find((m: any) => m.type === "Resource" && m.resource?.name === "cpu" && m.resource.target?.type === "Utilization");
    if (!cpu) p.push(`${role}: HPA does not scale on CPU utilization`);
    if (!(typeof pdb.spec.minAvailable === "number" && pdb.spec.minAvailable >= 1 && pdb.spec.minAvailable < hpa.spec.minReplicas)) p.push(`${role}: PDB minAvailable ${pdb.spec.minAvailable}; expected 1 to HPA min ${hpa.spec.minReplicas} - 1, so a drain can evict a pod`);
  }
  // The gateway's <SERVICE>_URL names that service's Service and port.
  const gw = deployments(objs).find((d) => roleOf(d) === "gateway");
  for (const role of SERVICES) {
    const url = gw && envOf(gw).find((e) => e.name === `${role.toUpperCase()}_URL`)?.value;
    if (url !== `http://${role}:${x.ports[role]}`) p.push(`gateway: ${role.toUpperCase()}_URL ${url}, expected http://${role}:${x.ports[role]}`);
  }
  return p;
}

/** Secret and ConfigMap references: no Secret rendered; every key a pod reads exists, every key provided is read. */
function referenceProblems(objs: Obj[], x: Expected): string[] {
  const p: string[] = [];
  if (ofKind(objs, "Secret").length > 0) p.push("the render contains a Secret: secret values stay out of git");
  const configMaps = ofKind(objs, "ConfigMap");
  const secretKeys = new Set<string>();
  const configKeys = new Set<string>();
  for (const d of deployments(objs)) {
    const role = roleOf(d);
    for (const e of envOf(d)) {
      const s = e.valueFrom?.secretKeyRef;
      const cm = e.valueFrom?.configMapKeyRef;
      if (s) {
        secretKeys.add(s.key);
        if (s.name !== x.secretName || (!s.optional && !x.secretKeys.includes(s.key))) p.push(`${role}: ${e.name} reads ${s.name}/${s.key}, not a key of ${x.secretName}`);
      }
      if (cm) {
        configKeys.add(cm.key);
        if (!configMaps.some((m) => m.metadata.name === cm.name && cm.key in (m.data ?? {}))) p.push(`${role}: ${e.name} reads ConfigMap ${cm.name}/${cm.key}, which is not rendered`);
      }
    }
    for (const v of podSpec(d).volumes ?? []) {
      for (const item of v.secret?.items ?? []) {
        secretKeys.add(item.key);
        if (v.secret.secretName !== x.secretName || !x.secretKeys.includes(item.key)) p.push(`${role}: volume ${v.name} reads ${v.secret.secretName}/${item.key}, not a key of ${x.secretName}`);
      }
    }
    // A *_FILE variable names a file of a mounted Secret volume.
    const files = (podSpec(d).volumes ?? []).flatMap((v: any) => {
      const mount = container(d).volumeMounts?.find((m: any) => m.name === v.name);
      return mount ? (v.secret?.items ?? []).map((i: any) => `${mount.mountPath}/${i.path}`) : [];
    });
    for (const e of envOf(d).filter((e) => e.name.endsWith("_FILE"))) if (!files.includes(e.value)) p.push(`${role}: ${e.name}=${e.value} is no mounted Secret file`);
  }
  for (const k of x.secretKeys) if (!secretKeys.has(k)) p.push(`${x.secretName} key ${k} is read by no pod`);
  for (const m of configMaps) for (const k of Object.keys(m.data ?? {})) if (!configKeys.has(k)) p.push(`ConfigMap key ${k} is read by no pod`);
  return p;
}

// ------------------------------------------------------------------------------------------

let production: Obj[];
let base: Obj[];
let development: Obj[];
let x: Expected;
const check = (objs: Obj[], exp: Expected) => [...workloadProblems(objs, exp), ...pairingProblems(objs, exp), ...referenceProblems(objs, exp)];

// Every check reads the manifests as kubectl renders them.
const kubectl = describe.skipIf(!inject("prerequisites").kubectl);

beforeAll(() => {
  if (!inject("prerequisites").kubectl) return;
  production = render("deploy/k8s/overlays/production");
  base = render("deploy/k8s/base");
  development = render("deploy/k8s/overlays/development");
  const readme = read("docs/configuration.md");
  const compose = parse(read("docker-compose.yml"));
  const example = parse(read("deploy/k8s/secret.example.yaml"));
  const bench = JSON.parse(read("bench/results.json")) as { runs: { deployment: string; rss_mb: number }[] };
  const peak = Math.max(...bench.runs.filter((r) => r.deployment === "distributed").map((r) => r.rss_mb));
  const dockerfile = read("Dockerfile");
  x = {
    image: compose.services.gateway.image,
    ports: readmePorts(readme),
    scripts: JSON.parse(read("package.json")).scripts,
    dockerfile,
    variables: readmeVariables(readme),
    secretName: example.metadata.name,
    secretKeys: Object.keys(example.stringData ?? {}),
    minMemoryMiB: Math.ceil(1.25 * peak),
    runAsUser: Number(/the node user \(uid (\d+)\)/.exec(dockerfile)?.[1]),
    // serve.ts: in-flight calls get shutdownGraceMs (default below) once SIGTERM arrives.
    serviceGraceS: Number(/shutdownGraceMs \?\? ([\d_]+)/.exec(read("packages/rpc/src/server/serve.ts"))?.[1].replace(/_/g, "")) / 1000,
    gatewayGraceS: (GATEWAY_CALLS_PER_REQUEST * Number(/RPC_TIMEOUT_MS: positiveInt\(\{ default: (\d+)/.exec(read("gateway/src/config.ts"))?.[1])) / 1000,
  };
});

kubectl("the other files agree on what the manifests are checked against", () => {
  it("one image, the documented ports (compose's too, and the Dockerfile's EXPOSE), the image's uid, the drain times", () => {
    const compose = parse(read("docker-compose.yml")).services;
    for (const role of ROLES) expect([compose[role].image, Number(compose[role].environment.PORT)], role).toEqual([x.image, x.ports[role]]);
    expect(x.image).toBe("permits-api:local");
    expect(x.ports).toEqual(Object.fromEntries([GATEWAY, ...MANIFESTS].map((r) => [r.name, r.port])));
    expect(x.dockerfile).toMatch(new RegExp(`^EXPOSE ${x.ports.gateway}$`, "m"));
    const exposed = [...x.dockerfile.matchAll(/^EXPOSE (.+)$/gm)].flatMap((m) => m[1].trim().split(/\s+/).map(Number));
    expect(exposed.sort()).toEqual(Object.values(x.ports).sort());
    expect(x.dockerfile).toMatch(/^USER node$/m);
    expect([x.runAsUser, x.serviceGraceS, x.gatewayGraceS]).toEqual([1000, 10, 30]);
    expect([...x.secretKeys].sort()).toEqual(["database-url", "gateway-token", "internal-tokens", "legacy-key-secret", "redis-url", "webhook-secret-key"]);
    expect(x.minMemoryMiB).toBeGreaterThan(700); // the distributed peak is ~775 MB
    expect(read("gateway/src/app.ts")).toMatch(/app\.get\("\/healthz"[\s\S]*app\.get\("\/readyz"/);
  });
});

kubectl.each([
  ["overlays/production", () => production, () => ({ ...x, image: `${x.image.split(":")[0]}:${JSON.parse(read("gateway/package.json")).version}` })],
  ["base", () => base, () => x],
])("deploy/k8s/%s", (_name, objs, expected) => {
  it("validates against the Kubernetes schemas (kubernetes-models), with known kinds only", () => {
    expect(schemaProblems(objs())).toEqual([]);
    const each = (kind: string) => ROLES.map(() => kind);
    expect(objs().map((o) => o.kind).sort()).toEqual([...each("Deployment"), ...each("HorizontalPodAutoscaler"), ...each("PodDisruptionBudget"), ...each("Service"), "ConfigMap"].sort());
  });

  it("agrees with docs/configuration.md, the Dockerfile, compose, package.json and the bench", () => {
    expect(check(objs(), expected())).toEqual([]);
  });
});

kubectl("deploy/k8s, strictly", () => {
  it("has no field the Kubernetes API does not know (kubernetes-models' types), in either render", () => {
    expect(unknownFieldProblems([...production, ...base])).toEqual([]);
  });

  it("the sites service reads DATABASE_URL from the Secret, never as a value, in either render", () => {
    for (const objs of [production, base]) {
      const sites = deployments(objs).find((d) => roleOf(d) === "sites")!;
      expect(envOf(sites).find((e) => e.name === "DATABASE_URL")).toEqual({ name: "DATABASE_URL", valueFrom: { secretKeyRef: { name: "permits-secrets", key: "database-url" } } });
    }
  });

  it("production: namespace permits, the release image, three or more gateways", () => {
    for (const o of production) expect(o.metadata.namespace, id(o)).toBe("permits");
    expect(new Set(deployments(production).map((d) => container(d).image))).toEqual(new Set(["permits-api:1.0.0"]));
    expect(ofKind(production, "HorizontalPodAutoscaler").find((h) => h.metadata.name === "gateway")?.spec.minReplicas).toBe(3);
  });
});

kubectl("each check fails for a concrete reason", () => {
  const clone = () => structuredClone(production);
  const dep = (objs: Obj[], role: Role) => deployments(objs).find((d) => roleOf(d) === role)!;
  const prodExpected = () => ({ ...x, image: "permits-api:1.0.0" });
  it.each<[string, (o: Obj[]) => Obj[] | void, string]>([
    ["gateway readiness on /healthz", (o) => void (container(dep(o, "gateway")).readinessProbe.httpGet.path = "/healthz"), "gateway: readinessProbe"],
    ["nwp liveness on the wrong port", (o) => void (container(dep(o, "nwp")).livenessProbe.grpc.port = 7001), "nwp: livenessProbe"],
    ["another image", (o) => void (container(dep(o, "ratelimit")).image = "permits-api:latest"), "ratelimit: image permits-api:latest"],
    ["an undocumented variable", (o) => void envOf(dep(o, "stormwater")).push({ name: "FEATURE_X", value: "1" }), "stormwater: FEATURE_X is not in the configuration table"],
    ["a variable of another role", (o) => void envOf(dep(o, "nwp")).push({ name: "LEGACY_KEY_SECRET", value: "x" }), 'documented for "entitlement"'],
    ["REDIS_URL on the gateway", (o) => void envOf(dep(o, "gateway")).push({ name: "REDIS_URL", value: "redis://r:6379" }), "gateway: REDIS_URL"],
    ["no PDB for nwp", (o) => o.filter((b) => !(b.kind === "PodDisruptionBudget" && b.metadata.name === "nwp")), "nwp: 1 Services, 1 HPAs, 0 PDBs"],
    ["a Service on the wrong port", (o) => void (o.find((s) => s.kind === "Service" && s.metadata.name === "stormwater")!.spec.ports[0].port = 7002), "stormwater: Service stormwater ports"],
    ["a secret key that is not documented", (o) => void (podSpec(dep(o, "gateway")).volumes[0].secret.items[0].key = "token"), "gateway: volume secrets reads permits-secrets/token"],
    ["a memory limit without headroom", (o) => void (container(dep(o, "gateway")).resources.limits.memory = "288Mi"), "gateway: memory limit 288Mi"],
    ["a writable root", (o) => void (container(dep(o, "entitlement")).securityContext.readOnlyRootFilesystem = false), "entitlement: container must have a read-only root"],
    ["a command without the young generation's size", (o) => void (container(dep(o, "stormwater")).command = ["node", "services/stormwater/dist/main.js"]), "stormwater: the command does not set --max-semi-space-size"],
    ["a grace period shorter than the drain", (o) => void (podSpec(dep(o, "gateway")).terminationGracePeriodSeconds = 30), "gateway: terminationGracePeriodSeconds 30"],
  ])("%s", (_what, mutate, problem) => {
    const objs = clone();
    const problems = check(mutate(objs) ?? objs, prodExpected());
    expect(problems.some((q) => q.includes(problem)), problems.join("\n")).toBe(true);
  });

  it("an unknown kind, an invalid value and an unknown field", () => {
    const objs = clone();
    container(dep(objs, "gateway")).ports[0].containerPort = "8080";
    container(dep(objs, "nwp")).readinesProbe = {};
    objs.push({ apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "web" } });
    expect(schemaProblems(objs)).toEqual([
      expect.stringMatching(/^Deployment gateway: .*containerPort must be integer/),
      "networking.k8s.io/v1 Ingress web: a kind this test does not know (add its model and checks)",
    ]);
    expect(unknownFieldProblems(objs)).toEqual([expect.stringMatching(/^Deployment gateway: Type 'string' is not assignable to type 'number'/), expect.stringMatching(/^Deployment nwp: .*'"readinesProbe"' does not exist in type 'IContainer'/)]);
  });
});

kubectl("deploy/k8s/overlays/development: PostgreSQL in the cluster", () => {
  const pgOf = (objs: Obj[]) => ofKind(objs, "StatefulSet").find((o) => o.metadata.name === "postgres")!;
  const devSecret = () => ofKind(development, "Secret")[0];
  const decoded = (secret: Obj) => ({ ...secret.stringData, ...Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), "base64").toString("utf8")])) });

  it("builds and validates: the base's objects, plus the database's StatefulSet, Service and Secret", () => {
    expect(schemaProblems(development)).toEqual([]);
    expect(unknownFieldProblems(development)).toEqual([]);
    const each = (kind: string) => ROLES.map(() => kind);
    expect(development.map((o) => o.kind).sort()).toEqual([...each("Deployment"), ...each("HorizontalPodAutoscaler"), ...each("PodDisruptionBudget"), ...each("Service"), "ConfigMap", "Secret", "Service", "StatefulSet"].sort());
    expect(workloadProblems(development, x)).toEqual([]);
    for (const o of development) expect(o.metadata.namespace, id(o)).toBe("permits-dev");
  });

  it("runs PostgreSQL 15 on a claimed volume, probed with pg_isready, behind the Service postgres:5432", () => {
    const pg = pgOf(development);
    const c = pg.spec.template.spec.containers[0];
    expect([pg.spec.replicas, c.image, pg.spec.serviceName]).toEqual([1, "postgres:15", "postgres"]);
    expect(pg.spec.volumeClaimTemplates.map((t: any) => [t.metadata.name, t.spec.resources.requests.storage])).toEqual([["data", "1Gi"]]);
    expect(c.volumeMounts.find((m: any) => m.name === "data").mountPath).toBe("/var/lib/postgresql/data");
    for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) expect(c[probe].exec.command[0], probe).toBe("pg_isready");
    expect([c.securityContext.readOnlyRootFilesystem, pg.spec.template.spec.securityContext.runAsNonRoot]).toEqual([true, true]);
    const svc = ofKind(development, "Service").find((o) => o.metadata.name === "postgres")!;
    expect(selects(svc.spec.selector, pg.spec.template.metadata.labels)).toBe(true);
    expect(svc.spec.ports.map((p: any) => p.port)).toEqual([5432]);
  });

  it("gives the database its password and the sites service a DATABASE_URL with that password, from one generated Secret", () => {
    const secret = devSecret();
    const values = decoded(secret);
    const pgEnv = Object.fromEntries(pgOf(development).spec.template.spec.containers[0].env.map((e: Env) => [e.name, e]));
    expect(pgEnv.POSTGRES_PASSWORD.valueFrom.secretKeyRef).toEqual({ name: secret.metadata.name, key: "password" });
    const sites = deployments(development).find((d) => roleOf(d) === "sites")!;
    expect(envOf(sites).find((e) => e.name === "DATABASE_URL")?.valueFrom.secretKeyRef).toEqual({ name: secret.metadata.name, key: "database-url" });
    const url = new URL(values["database-url"]);
    expect([url.protocol, url.username, url.password, url.host, url.pathname]).toEqual(["postgres:", pgEnv.POSTGRES_USER.value, values.password, "postgres:5432", `/${pgEnv.POSTGRES_DB.value}`]);
    // The other pods still read the operator's Secret.
    const others = deployments(development).filter((d) => roleOf(d) !== "sites").flatMap(envOf).flatMap((e) => e.valueFrom?.secretKeyRef?.name ?? []);
    expect(new Set(others)).toEqual(new Set(["permits-secrets"]));
  });
});
