// The sites service as the distributed deployment runs it: its own process (`services/sites/dist/
// main.js`), called over the gateway's HTTP/2 transport with the gateway's token. Its requests
// carry photos and plan documents, so its manifest raises the request limit for it alone: a 10 MB
// photo reaches the service, an 11 MB one gets the service's own field error, not a transport
// refusal. Then the same round trip on PostgreSQL (a database of its own, created and dropped),
// and the app's sign-in sessions there, as the Kubernetes deployment keeps them.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type Client, Code, createClient } from "@connectrpc/connect";
import { BadRequestSchema } from "@permits/proto/common/v1/common";
import { AppAccess, Plan } from "@permits/proto/entitlement/v1/entitlement";
import { SitesService } from "@permits/proto/sites/v1/sites";
import { createH2Transport, MAX_REQUEST_BYTES, sendToken, withInterceptors } from "@permits/rpc";
import { ACTOR, type DbKind, failure, postgresKind, report, siteDetails } from "@permits/sites/testing";
import { SERVICES } from "@permits/gateway/services";
import { ensureBuilt, freePort, type Proc, startProcess, TEST_INTERNAL_TOKENS, TEST_TOKENS, waitFor } from "./support/processes.js";

const MB = 1024 * 1024;
const ACCOUNT = "acct_distributed";
const scoped = { accountId: ACCOUNT, actor: ACTOR };
/** A JPEG (by its first bytes) of exactly `size` bytes. */
const jpeg = (size: number) => {
  const b = new Uint8Array(size);
  b.set([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
  return b;
};

interface Standalone {
  client: Client<typeof SitesService>;
  proc: Proc;
  close(): Promise<void>;
}

/** The built sites service on free ports, with `env`; resolved once a call gets through. */
async function startSites(env: Record<string, string>): Promise<Standalone> {
  ensureBuilt();
  const port = await freePort();
  const proc = startProcess("sites", "services/sites/dist/main.js", { PORT: String(port), METRICS_PORT: "0", REDIS_URL: "", INTERNAL_TOKENS: TEST_INTERNAL_TOKENS, ...env });
  // As the gateway makes its remote clients (gateway/src/wiring.ts): the lean HTTP/2 transport, its token on every call.
  const client = createClient(SitesService, withInterceptors(createH2Transport({ baseUrl: `http://127.0.0.1:${port}`, defaultTimeoutMs: 30_000 }), [sendToken(TEST_TOKENS.gateway)]));
  const close = () =>
    new Promise<void>((resolve) => {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) return resolve();
      proc.child.once("exit", () => resolve());
      proc.child.kill("SIGTERM");
    });
  try {
    await waitFor(async () => (await client.listSites(scoped)).sites.length === 0, 30_000, "the sites service");
  } catch (e) {
    await close();
    throw new Error(`${(e as Error).message}\n${proc.output()}`);
  }
  return { client, proc, close };
}

describe("the request limit is the service's own", () => {
  it("is 48 MB for sites (a plan version's two 20 MB documents), the shared 8 MB for every other service", () => {
    expect(SERVICES.find((s) => s.name === "sites")?.maxRequestBytes).toBe(48 * MB);
    expect(MAX_REQUEST_BYTES).toBe(8 * MB);
    expect(SERVICES.filter((s) => "maxRequestBytes" in s).map((s) => s.name)).toEqual(["sites"]);
  });
});

describe("the sites service on SQLite (a temp STATE_DIR), over HTTP/2", () => {
  let stateDir: string;
  let s: Standalone;
  beforeAll(async () => {
    stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-sites-"));
    s = await startSites({ STATE_DIR: stateDir, DATABASE_URL: "" });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("takes a 10 MB photo, answers an 11 MB one with its own field error, and refuses past its 48 MB limit", async () => {
    const site = (await s.client.createSite({ ...scoped, details: siteDetails() })).site!;
    const draft = (await s.client.createInspectionDraft({ ...scoped, siteId: site.id, report: report() })).inspection!;
    const photo = { ...scoped, siteId: site.id, inspectionId: draft.id };

    const added = await s.client.addInspectionPhoto({ ...photo, content: jpeg(10 * MB), caption: "north silt fence" });
    expect(added.photo?.sizeBytes).toBe(BigInt(10 * MB));
    const stored = await s.client.getInspectionPhoto({ ...scoped, siteId: site.id, photoId: added.photo!.id });
    expect(stored.content.length).toBe(10 * MB);

    const tooBig = await failure(s.client.addInspectionPhoto({ ...photo, content: jpeg(11 * MB) }));
    expect(tooBig.code).toBe(Code.InvalidArgument);
    const fields = tooBig.findDetails(BadRequestSchema).flatMap((d) => d.violations.map((v) => [v.field, v.description]));
    expect(fields).toEqual([["content", `a photo must be at most 10 MB (${10 * MB} bytes); this one is ${11 * MB} bytes`]]);

    const pastLimit = await failure(s.client.addInspectionPhoto({ ...photo, content: jpeg(49 * MB) }));
    expect([pastLimit.code, pastLimit.rawMessage]).toEqual([Code.ResourceExhausted, `message larger than ${48 * MB} bytes`]);
    // Still serving, and the refused photos left nothing behind.
    const listed = await s.client.getInspection({ ...scoped, siteId: site.id, inspectionId: draft.id });
    expect(listed.inspection?.photos.map((p) => p.id)).toEqual([added.photo!.id]);
    expect(existsSync(path.join(stateDir, "sites.sqlite")), "the records are in STATE_DIR's SQLite file").toBe(true);
  }, 60_000);
});

const pgUp = inject("prerequisites").postgres;
describe.skipIf(!pgUp)("the sites service on PostgreSQL (DATABASE_URL, a database of its own), over HTTP/2", () => {
  let db: DbKind;
  let s: Standalone;
  beforeAll(async () => {
    const kind = await postgresKind();
    if (!kind) throw new Error("PostgreSQL answered the prerequisite check but no database could be created");
    db = kind;
    s = await startSites({ DATABASE_URL: db.url() });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    await db?.cleanup();
  });

  it("creates a site, reads it back, lists it, and keeps other accounts out", async () => {
    const created = (await s.client.createSite({ ...scoped, details: siteDetails() })).site!;
    expect(created.id).toMatch(/\S/);
    const got = (await s.client.getSite({ ...scoped, siteId: created.id })).site!;
    expect([got.details?.name, got.details?.input?.state, got.details?.location?.address, got.closedOn]).toEqual(["Maple Street townhomes", "WA", "1200 Maple St, Everett, WA 98201", undefined]);
    expect((await s.client.listSites(scoped)).sites.map((x) => x.id)).toEqual([created.id]);
    const other = await failure(s.client.getSite({ accountId: "acct_other", actor: ACTOR, siteId: created.id }));
    expect(other.code).toBe(Code.NotFound);
    const trail = await s.client.listAuditEvents({ ...scoped, siteId: created.id });
    expect(trail.events.map((e) => e.action)).toEqual(["site.created"]);
  }, 60_000);
  it("keeps the app's sign-in sessions for the gateway, by digest, until signed out", async () => {
    const idSha256 = createHash("sha256").update("a session id the gateway made").digest("hex");
    const created = await s.client.createSession({ idSha256, accountId: ACCOUNT, keyId: "key_7f3a", plan: Plan.SCALE, access: AppAccess.WORKSPACE, idleLimitSeconds: 12 * 3600 });
    expect(created.session).toMatchObject({ accountId: ACCOUNT, keyId: "key_7f3a", plan: Plan.SCALE, access: AppAccess.WORKSPACE, idleLimitSeconds: 12 * 3600 });
    expect((await s.client.getSession({ idSha256 })).session?.createdAt).toBe(created.session!.createdAt);
    expect((await s.client.endSession({ idSha256 })).ended).toBe(true);
    expect((await s.client.getSession({ idSha256 })).session).toBeUndefined();
  }, 60_000);
});
if (!pgUp) it.skip("the PostgreSQL round trip (no PostgreSQL answers: see the run's opening lines)", () => {});
