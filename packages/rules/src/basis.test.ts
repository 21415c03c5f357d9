import { describe, expect, test } from "vitest";
import { weakerBasis } from "./basis.js";

describe("weakerBasis", () => {
  test("takes the basis further from the official text, in either order", () => {
    expect(weakerBasis("official-text", "secondary")).toBe("secondary");
    expect(weakerBasis("secondary", "official-text")).toBe("secondary");
    expect(weakerBasis("agency-form", "prior-edition")).toBe("prior-edition");
    expect(weakerBasis("unsourced", "agency-form")).toBe("unsourced");
    expect(weakerBasis("official-text", "official-text")).toBe("official-text");
  });
});
