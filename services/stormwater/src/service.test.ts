// The Connect service through a real in-memory transport: all 56 codes answer on every
// handler, unknown codes are InvalidArgument (never NotFound), responses carry datasetVersion.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, createRouterTransport } from "@connectrpc/connect";
import { badRequestOf } from "@permits/rules";
import { Confidence } from "@permits/proto/common/v1/common";
import { Coverage, CredentialGate, SiteInputSchema, StormwaterService } from "@permits/proto/stormwater/v1/stormwater";
import { TODAY } from "./testing.js";
import { describe, expect, test } from "vitest";
import { loadDataset } from "./dataset.js";
import { createStormwaterService } from "./service.js";

const ds = loadDataset();
const client = createClient(StormwaterService, createRouterTransport(({ service }) => service(StormwaterService, createStormwaterService(ds, () => TODAY))));

async function refusal(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error("expected a refusal");
}

describe("all 56 codes answer", () => {
  test.each(ds.codes)("%s", async (code) => {
    const site = create(SiteInputSchema, { state: code, activity: "construction", disturbedAcres: 2 });
    const d = (await client.determine({ site })).determination!;
    // Where the held permit has expired with no successor held (AK, CT, OR on the pinned date), verify.
    // Arizona's held permit may have lapsed: its replacement was proposed and its expiry is not held.
    const lapsed = ds.raw.jurisdictions.jurisdictions.find((j) => j.code === code)!.statePermits.some((p) => (p.expiryDate !== null && p.expiryDate < "2026-11-24") || (p.expiryDate === null && p.replacementProposed));
    expect(d.coverage).toBe(lapsed ? Coverage.VERIFY : Coverage.REQUIRED);
    expect(d.jurisdiction?.code).toBe(code);
    expect(d.datasetVersion).toBe(ds.version);
    const r = (await client.getRequirements({ site })).result!;
    expect(r.requirementCount).toBe(d.requirements.length);
    expect(r.site?.state).toBe(code);
    expect(r.notices).toEqual(d.notices);
    const j = await client.getJurisdiction({ code: code.toLowerCase() });
    expect(j.jurisdiction?.code).toBe(code);
    expect(j.jurisdiction?.credential).toBeDefined();
    expect([Confidence.VERIFIED, Confidence.UNVERIFIED]).toContain(j.jurisdiction?.confidence);
    const c = await client.getCredentialGate({ state: code, acres: 2 });
    expect(c.result?.state).toBe(code);
    expect(c.datasetVersion).toBe(ds.version);
  });
});

test("listJurisdictions: 56 rows in code order with the verified count", async () => {
  const l = await client.listJurisdictions({});
  expect(l.count).toBe(56);
  expect(l.jurisdictions.map((j) => j.code)).toEqual(ds.codes);
  expect(l.verifiedCount).toBe(l.jurisdictions.filter((j) => j.confidence === Confidence.VERIFIED).length);
  expect(l.verifiedCount).toBe(53);
  expect(l.coverageNote).toContain("56 codes");
  for (const j of l.jurisdictions) {
    expect(j.credential).toBeDefined();
    if (j.confidence === Confidence.UNVERIFIED) {
      expect(j.credential!.gate).toBe(CredentialGate.UNKNOWN);
      expect(j.note).toMatch(/Confirm/);
    }
  }
});

test("an unverified jurisdiction is answered, not NotFound", async () => {
  const j = await client.getJurisdiction({ code: "VI" });
  expect(j.jurisdiction?.confidence).toBe(Confidence.UNVERIFIED);
  expect(j.jurisdiction?.note).toContain("Department of Planning and Natural Resources");
});

test.each([
  ["getJurisdiction unknown code", () => client.getJurisdiction({ code: "QQ" }), "state"],
  ["getCredentialGate unknown state", () => client.getCredentialGate({ state: "QQ" }), "state"],
  ["determine unknown state", () => client.determine({ site: { state: "QQ", activity: "construction", disturbedAcres: 1 } }), "state"],
  ["determine without a site", () => client.determine({}), "state"],
  ["getRequirements with an unknown activity", () => client.getRequirements({ site: { state: "MA", activity: "demolition", disturbedAcres: 1 } }), "activity"],
] as const)("%s is InvalidArgument with a BadRequest detail", async (_l, call, field) => {
  const err = await refusal(call());
  expect(err.code).toBe(Code.InvalidArgument);
  const br = badRequestOf(err)!;
  expect(br.violations[0].field).toBe(field);
  if (field === "state") expect(br.violations[0].knownValues).toHaveLength(56);
});
