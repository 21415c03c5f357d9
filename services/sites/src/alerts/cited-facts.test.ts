// Which changed facts a saved answer cites: pure, on a Texas answer (a state permit) and an EPA one.
import { create } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { Confidence, FactChangeGroupSchema, FactChangeKind, FactChangeSchema, FactStateSchema } from "@permits/proto/common/v1/common";
import { citedChanges, citesFact, scopeOfAnswer } from "./cited-facts.js";

const TX = JSON.stringify({
  jurisdiction: { code: "TX" },
  permit: { id: "tx-txr150000" },
  requirements: [{ id: "inspection.frequency" }, { id: "filing.noi" }],
  datasetVersion: "v1",
});
const MA = JSON.stringify({ jurisdiction: { code: "MA" }, permit: { id: "cgp-2022" }, requirements: [{ id: "inspection.frequency.option1" }], eligibilityScreens: [{ id: "esa" }], input: { onTribalLand: true } });

const state = (days: number, url = "https://www.tceq.texas.gov/") =>
  create(FactStateSchema, { value: create(ValueSchema, { kind: { case: "numberValue", value: days } }), confidence: Confidence.UNVERIFIED, sourceCitation: "TXR150000", sourceUrl: url });
const change = (fact: string, before: number, after: number, version = "v2", url?: string) =>
  create(FactChangeSchema, { fact, change: FactChangeKind.CHANGED, datasetVersion: version, before: state(before), after: state(after, url) });

describe("scopeOfAnswer and citesFact", () => {
  it("reads the jurisdiction, permit, requirements, screens and EPA areas an answer names", () => {
    const s = scopeOfAnswer(MA);
    expect([s.jurisdiction, s.permitId, [...s.requirementIds], [...s.screenIds], [...s.areas]]).toEqual(["MA", "cgp-2022", ["inspection.frequency.option1"], ["esa"], ["indianCountry"]]);
    expect(scopeOfAnswer("not json")).toMatchObject({ jurisdiction: "", permitId: "" });
  });

  it("cites a state permit's own requirements, number and dates, and its jurisdiction's facts; not another permit's or requirement's", () => {
    const tx = scopeOfAnswer(TX);
    const j = { kind: "jurisdiction", id: "TX" };
    expect(citesFact(tx, j, "jurisdictions/TX/statePermits/tx-txr150000/requirements/inspection.frequency/citation")).toBe(true);
    expect(citesFact(tx, j, "jurisdictions/TX/statePermits/tx-txr150000/datesCitation")).toBe(true);
    expect(citesFact(tx, j, "jurisdictions/TX/credential")).toBe(true);
    expect(citesFact(tx, j, "jurisdictions/TX/statePermits/tx-txr150000/requirements/stabilization.initiate/citation")).toBe(false);
    expect(citesFact(tx, j, "jurisdictions/TX/statePermits/tx-txr050000/datesCitation")).toBe(false);
    expect(citesFact(tx, { kind: "jurisdiction", id: "OK" }, "jurisdictions/OK")).toBe(false);
    expect(citesFact(tx, { kind: "permit", id: "cgp-2022" }, "cgp-requirements/requirements/inspection.frequency/citation")).toBe(false);
  });

  it("cites the CGP's requirements and screens an EPA answer names, and the EPA area its input placed it in", () => {
    const ma = scopeOfAnswer(MA);
    const cgp = { kind: "permit", id: "cgp-2022" };
    expect(citesFact(ma, cgp, "cgp-requirements/requirements/inspection.frequency.option1/cases/standard/citation")).toBe(true);
    expect(citesFact(ma, cgp, "cgp-requirements/requirements/inspection.frequency.option2/citation")).toBe(false);
    expect(citesFact(ma, cgp, "cgp-requirements/screens/esa/citation")).toBe(true);
    expect(citesFact(ma, cgp, "cgp-requirements/screens/historic/citation")).toBe(false);
    expect(citesFact(ma, cgp, "permits/cgp-2022/citation")).toBe(true);
    expect(citesFact(ma, { kind: "area", id: "indianCountry" }, "epa-areas/indianCountry/defaultCitation")).toBe(true);
    expect(citesFact(ma, { kind: "area", id: "federalFacilities" }, "epa-areas/federalFacilities/defaultCitation")).toBe(false);
  });
});

describe("citedChanges", () => {
  const fact = "jurisdictions/TX/statePermits/tx-txr150000/requirements/inspection.frequency/citation";
  const other = "jurisdictions/TX/statePermits/tx-txr150000/requirements/stabilization.initiate/citation";

  it("keeps the changes the answer cites, one per fact: before the first version, after the last", () => {
    const groups = [
      create(FactChangeGroupSchema, { kind: "jurisdiction", id: "TX", changes: [change(fact, 7, 14, "v2"), change(other, 14, 21, "v2"), change(fact, 14, 10, "v3", "https://www.tceq.texas.gov/new")] }),
      create(FactChangeGroupSchema, { kind: "jurisdiction", id: "WA", changes: [change("jurisdictions/WA/credential", 1, 2)] }),
    ];
    const found = citedChanges(scopeOfAnswer(TX), groups);
    expect(found.map((c) => [c.fact, c.datasetVersion, c.before?.value?.kind.value, c.after?.value?.kind.value, c.after?.sourceUrl])).toEqual([[fact, "v3", 7, 10, "https://www.tceq.texas.gov/new"]]);
  });

  it("leaves out a fact changed and changed back, and finds nothing for an answer citing none of the changes", () => {
    const back = [create(FactChangeGroupSchema, { kind: "jurisdiction", id: "TX", changes: [change(fact, 7, 14, "v2"), change(fact, 14, 7, "v3")] })];
    expect(citedChanges(scopeOfAnswer(TX), back)).toEqual([]);
    expect(citedChanges(scopeOfAnswer(MA), [create(FactChangeGroupSchema, { kind: "jurisdiction", id: "TX", changes: [change(fact, 7, 14)] })])).toEqual([]);
  });
});
