// The credential gate: applies-to-site rules and what a generated document is.
import { TODAY } from "../testing.js";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { badRequestOf } from "@permits/rules";
import { Confidence } from "@permits/proto/common/v1/common";
import { CredentialGate, SiteInputSchema } from "@permits/proto/stormwater/v1/stormwater";
import { describe, expect, test } from "vitest";
import { loadDataset } from "../dataset.js";
import { determineStormwater, DOCUMENT_STATUS, getCredentialGate } from "./index.js";

const ds = loadDataset();

describe("getCredentialGate", () => {
  test.each([
    ["AL", 2, CredentialGate.GATED, true, Confidence.VERIFIED, DOCUMENT_STATUS.draftForCredentialedPreparer],
    ["AL", 0.5, CredentialGate.GATED, undefined, Confidence.VERIFIED, DOCUMENT_STATUS.draftForCredentialedPreparer],
    ["CA", 1, CredentialGate.GATED, true, Confidence.VERIFIED, DOCUMENT_STATUS.draftForCredentialedPreparer],
    ["WA", 2, CredentialGate.CONDITIONAL, true, Confidence.VERIFIED, DOCUMENT_STATUS.draftForReview],
    ["WA", 0.5, CredentialGate.CONDITIONAL, false, Confidence.VERIFIED, DOCUMENT_STATUS.draftForReview],
    ["MI", 3, CredentialGate.GATED, true, Confidence.VERIFIED, DOCUMENT_STATUS.draftForReview],
    ["VA", 3, CredentialGate.GATED, undefined, Confidence.VERIFIED, DOCUMENT_STATUS.draftForReview],
    ["MN", 3, CredentialGate.GATED, true, Confidence.VERIFIED, DOCUMENT_STATUS.draftForCredentialedPreparer],
    ["GA", 3, CredentialGate.GATED, true, Confidence.UNVERIFIED, DOCUMENT_STATUS.draftForCredentialedPreparer],
    ["TN", 3, CredentialGate.CONDITIONAL, undefined, Confidence.UNVERIFIED, DOCUMENT_STATUS.draftForCredentialedPreparer],
    ["MA", 3, CredentialGate.GATED, true, Confidence.UNVERIFIED, DOCUMENT_STATUS.draftForReview],
    ["SC", 3, CredentialGate.CONDITIONAL, true, Confidence.UNVERIFIED, DOCUMENT_STATUS.draftForCredentialedPreparer],
    ["IL", 3, CredentialGate.UNKNOWN, undefined, Confidence.UNVERIFIED, DOCUMENT_STATUS.draftForReview],
    ["DE", undefined, CredentialGate.UNKNOWN, undefined, Confidence.UNVERIFIED, DOCUMENT_STATUS.draftForReview],
  ] as const)("%s at %s acres", (state, acres, gate, applies, confidence, status) => {
    const r = getCredentialGate(ds, state, acres);
    expect(r.state).toBe(state);
    expect(r.acres).toBe(acres);
    expect(r.gate).toBe(gate);
    expect(r.appliesToThisSite).toBe(applies);
    expect(r.confidence).toBe(confidence);
    expect(r.documentStatus).toBe(status);
    expect(r.summary.length).toBeGreaterThan(20);
  });

  test("every code answers, and no answer is 'deliverable' or open", () => {
    for (const c of ds.codes) {
      const r = getCredentialGate(ds, c.toLowerCase(), 2);
      expect(r.gate).not.toBe(CredentialGate.OPEN);
      expect(r.documentStatus).not.toBe(DOCUMENT_STATUS.deliverable);
      if (ds.jurisdictions.get(c)!.raw.confidence === "unverified") {
        expect(r.gate).toBe(CredentialGate.UNKNOWN);
        expect(r.note).toMatch(/Confirm/);
      }
    }
  });

  test.each([
    ["ZZ", 1, "state", /not a known/],
    ["", 1, "state", /required/],
    ["CA", -1, "acres", /0 or more/],
    ["CA", Number.NaN, "acres", /finite/],
  ] as const)("refuses state %j acres %s", (state, acres, field, msg) => {
    try {
      getCredentialGate(ds, state, acres);
      throw new Error("expected a refusal");
    } catch (e) {
      expect(e).toBeInstanceOf(ConnectError);
      expect((e as ConnectError).code).toBe(Code.InvalidArgument);
      expect((e as ConnectError).rawMessage).toMatch(msg);
      expect(badRequestOf(e as ConnectError)!.violations[0].field).toBe(field);
    }
  });
});

describe("credential inside a determination", () => {
  const det = (state: string, disturbedAcres: number, partOfLargerPlan?: boolean) =>
    determineStormwater(ds, create(SiteInputSchema, { state, activity: "construction", disturbedAcres, partOfLargerPlan }), TODAY);
  test.each([
    ["AL", 2, undefined, true],
    ["AL", 0.5, undefined, false],
    ["AL", 0.5, true, true],
    ["WA", 0.5, true, false],
    ["WA", 1, undefined, true],
    ["MD", 10, undefined, undefined],
    ["OH", 10, undefined, undefined],
  ] as const)("%s %s acres plan %s -> applies %s", (state, acres, plan, applies) => {
    const d = det(state, acres, plan);
    expect(d.jurisdiction?.credential?.appliesToThisSite).toBe(applies);
    expect(d.derivation.at(-1)!.step).toBe("preparer credential");
  });
});
