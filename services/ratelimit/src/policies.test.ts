// The tier table: schema-valid, carrying the limits of both documents, and overridable by TIERS_FILE.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dataDir } from "@permits/rules";
import { loadPolicies, validateTiers } from "./policies.js";

const tiersFile = path.join(dataDir(), "tiers.json");
const raw = () => JSON.parse(readFileSync(tiersFile, "utf8")) as { policies: Array<Record<string, unknown>> };

describe("data/tiers.json", () => {
  it("validates against data/schemas/tiers.schema.json", () => {
    expect(validateTiers(raw())).toEqual([]);
  });

  it("holds every tier of both documents with its windows", () => {
    const table = loadPolicies(tiersFile);
    const summary = Object.fromEntries(
      [...table.values()].map((p) => [p.id, p.windows.map((w) => `${w.limit}/${w.name}${w.quota ? " quota" : ""}`).join(" + ")]),
    );
    expect(summary).toEqual({
      "stormwater.anonymous": "4/minute + 20/day",
      "stormwater.sandbox": "10/minute + 200/day",
      "stormwater.test": "10/minute + 200/day",
      "stormwater.pro": "60/minute + 1000/month quota",
      "stormwater.scale": "300/minute + 10000/month quota",
      "nwp.sandbox": "25/hour",
      "nwp.pro": "5000/day",
      "nwp.free": "50/day",
      recover: "25/hour",
      "app-sign-in": "5/minute + 30/hour",
    });
    expect(table.get("stormwater.anonymous")).toMatchObject({ bucketBy: "ip", upgradeUrl: "/api/v1/pricing" });
    expect(table.get("stormwater.test")?.bucketBy).toBe("key");
    expect(table.get("nwp.sandbox")?.bucketBy).toBe("ip");
    expect(table.get("recover")?.bucketBy).toBe("ip");
  });

  it.each([
    ["an unknown window name", (d: ReturnType<typeof raw>) => ((d.policies[0].windows as object[])[0] = { name: "week", limit: 4 })],
    ["a zero limit", (d: ReturnType<typeof raw>) => ((d.policies[0].windows as object[])[0] = { name: "minute", limit: 0 })],
    ["a fractional limit", (d: ReturnType<typeof raw>) => ((d.policies[0].windows as object[])[0] = { name: "minute", limit: 1.5 })],
    ["an unknown property", (d: ReturnType<typeof raw>) => (d.policies[0].burst = 4)],
    ["a missing id", (d: ReturnType<typeof raw>) => delete d.policies[0].id],
    ["a duplicate policy id", (d: ReturnType<typeof raw>) => (d.policies[1].id = d.policies[0].id)],
    ["a repeated window", (d: ReturnType<typeof raw>) => (d.policies[0].windows = [{ name: "day", limit: 1 }, { name: "day", limit: 2 }])],
  ])("rejects %s", (_, mutate) => {
    const doc = raw();
    mutate(doc);
    expect(validateTiers(doc).length).toBeGreaterThan(0);
  });
});

describe("loadPolicies", () => {
  const saved = process.env.TIERS_FILE;
  afterEach(() => {
    if (saved === undefined) delete process.env.TIERS_FILE;
    else process.env.TIERS_FILE = saved;
  });

  it("reads TIERS_FILE when set (benchmark and test policy files)", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "tiers-")), "bench.json");
    const doc = { version: 1, policies: [{ id: "bench.pro", document: "stormwater", tier: "pro", bucketBy: "key", windows: [{ name: "minute", limit: 100000 }, { name: "month", limit: 1000, quota: true }] }] };
    writeFileSync(file, JSON.stringify(doc));
    process.env.TIERS_FILE = file;
    expect([...loadPolicies().keys()]).toEqual(["bench.pro"]);
  });

  it("refuses to start on an invalid file, naming the problem", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), "tiers-")), "bad.json");
    writeFileSync(file, JSON.stringify({ version: 1, policies: [{ id: "x", document: "stormwater", tier: "x", bucketBy: "ip", windows: [] }] }));
    expect(() => loadPolicies(file)).toThrow(/invalid tier table .*bad\.json[\s\S]*windows/);
  });
});
