import { describe, expect, test } from "vitest";
import { Basis } from "@permits/proto/common/v1/common";
import { basisOf, basisPhrase, mayBeVerified, weakerBasis } from "./basis.js";
import { mayRelax } from "./caution.js";

describe("weakerBasis", () => {
  test("takes the basis further from the official text, in either order", () => {
    expect(weakerBasis("official-text", "secondary")).toBe("secondary");
    expect(weakerBasis("secondary", "official-text")).toBe("secondary");
    expect(weakerBasis("agency-form", "prior-edition")).toBe("prior-edition");
    expect(weakerBasis("unsourced", "agency-form")).toBe("unsourced");
    expect(weakerBasis("official-text", "official-text")).toBe("official-text");
  });
});

describe("an agency's own page", () => {
  test("sits between an earlier edition and a third party's statement, is never verified and never relaxes", () => {
    expect(weakerBasis("agency-page", "secondary")).toBe("secondary");
    expect(weakerBasis("prior-edition", "agency-page")).toBe("agency-page");
    expect(weakerBasis("agency-form", "agency-page")).toBe("agency-page");
    expect(mayBeVerified("agency-page")).toBe(false);
    expect(mayRelax({ basis: "agency-page" })).toBe(false);
    expect(basisOf("agency-page")).toBe(Basis.AGENCY_PAGE);
    expect(basisPhrase({ basis: "agency-page" })).toBe("stated on the agency's own page, not in the permit text");
  });
});
