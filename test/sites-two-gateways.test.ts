// Two embedded gateways (`npm start`, twice) on one STATE_DIR: the sites service of each opens the
// same SQLite file (WAL, a busy timeout, every transaction BEGIN IMMEDIATE). One Pro customer
// signed in on both adds sites and signs inspections through both at once; every write either
// gateway acknowledged is then seen from both, and no request met a locked database.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppVisitor, overHttp } from "./support/app-browser.js";
import { ROOT, startGatewayProcess, type GatewayProcess } from "./support/processes.js";

const SITE = { state: "MA", activity: "construction", acres: "3", address: "12 Mill Road, Lowell", operator_name: "Acme Earthworks" };
/** Concurrent writers on each gateway, and sites each writer adds (one signed inspection each). */
const WRITERS = 3;
const SITES_EACH = 2;

let stateDir: string;
let gateways: GatewayProcess[] = [];
let visitors: AppVisitor[] = [];

beforeAll(async () => {
  stateDir = mkdtempSync(path.join(os.tmpdir(), "permits-two-gateways-"));
  gateways = await Promise.all([0, 1].map(() => startGatewayProcess({ STATE_DIR: stateDir })));
  // A live Pro key, issued by the key CLI into the LMDB store both gateways share.
  const out = execFileSync(process.execPath, [path.join(ROOT, "services/entitlement/dist/cli.js"), "create", "--kind", "live", "--plan", "pro", "--label", "two gateways", "--json"], { env: { ...process.env, STATE_DIR: stateDir, REDIS_URL: "" }, encoding: "utf8", stdio: "pipe" });
  const key = JSON.parse(out).key as string;
  visitors = gateways.map((g) => new AppVisitor(overHttp(g.baseUrl)));
  for (const v of visitors) expect((await v.signIn(key)).statusCode).toBe(303);
}, 60_000);

afterAll(() => {
  for (const g of gateways) g.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

/** Adds a site and one signed inspection through `v`; answers the site's path once both are acknowledged. */
async function siteWithSignedInspection(v: AppVisitor, name: string, inspectedOn: string): Promise<string> {
  await v.get("/app/sites/new");
  const created = await v.post("/app/sites", { name, ...SITE });
  expect(created.statusCode, created.body).toBe(303);
  const at = created.headers.location as string;
  await v.get(`${at}/inspections/new`);
  const draft = await v.postMultipart(`${at}/inspections`, { inspected_on: inspectedOn, type: "routine", inspector_name: "Dana Ortiz" }, []);
  expect(draft.statusCode, draft.body).toBe(303);
  const signed = await v.post(`${draft.headers.location}/sign`, { signed_by: "Dana Ortiz", agree: "true" });
  expect(signed.statusCode, signed.body).toBe(303);
  return at;
}

describe("two embedded gateways on one STATE_DIR", () => {
  it("write sites and signed inspections at once; every acknowledged write is seen from both, none meets a locked database", async () => {
    const inspectedOn = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const written = await Promise.all(
      visitors.flatMap((v, g) =>
        Array.from({ length: WRITERS }, async (_, w) => {
          const made: Array<{ at: string; name: string }> = [];
          for (let n = 0; n < SITES_EACH; n++) {
            const name = `Gateway ${g} writer ${w} site ${n}`;
            made.push({ at: await siteWithSignedInspection(v, name, inspectedOn), name });
          }
          return made;
        }),
      ),
    );
    const sites = written.flat();
    expect(sites).toHaveLength(2 * WRITERS * SITES_EACH);
    expect(new Set(sites.map((s) => s.at)).size).toBe(sites.length);
    expect(existsSync(path.join(stateDir, "sites.sqlite")), "both gateways wrote STATE_DIR's one SQLite file").toBe(true);

    for (const v of visitors) {
      const dashboard = await v.get("/app");
      expect(dashboard.statusCode).toBe(200);
      const listed = [...dashboard.body.matchAll(/<a href="(\/app\/sites\/[^"]+)">([^<]+)<\/a>/g)].map((m) => ({ at: m[1], name: m[2] }));
      expect(listed.sort((a, b) => a.name.localeCompare(b.name))).toEqual([...sites].sort((a, b) => a.name.localeCompare(b.name)));
      for (const { at } of sites) {
        const csv = await v.get(`${at}/records.csv`);
        expect(csv.statusCode).toBe(200);
        const inspections = csv.body.split("\r\n").filter((l) => l.startsWith("inspection,"));
        expect(inspections, at).toHaveLength(1);
        expect(inspections[0]).toMatch(new RegExp(`^inspection,[^,]+,1,signed,${inspectedOn},`));
      }
    }
    for (const g of gateways) expect(g.proc.output()).not.toMatch(/database is locked|SQLITE_BUSY|sites database is unavailable/);
  }, 60_000);
});
