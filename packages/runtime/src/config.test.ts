import { describe, expect, it } from "vitest";
import { ConfigError, optionalUrl, port, positiveInt, readEnv, str } from "./config.js";

describe("readEnv", () => {
  const spec = { PORT: port({ default: 8080 }), LIMIT: positiveInt({ default: 65536 }), X_URL: optionalUrl({ default: undefined }), HOST: str({ default: "127.0.0.1" }) };
  it("applies defaults", () => {
    expect({ ...readEnv(spec, {}) }).toEqual({ PORT: 8080, LIMIT: 65536, X_URL: undefined, HOST: "127.0.0.1" });
  });
  it("names every bad variable", () => {
    expect(() => readEnv(spec, { PORT: "eighty", LIMIT: "-3" })).toThrow(ConfigError);
    try {
      readEnv(spec, { PORT: "eighty", LIMIT: "-3", X_URL: "not a url" });
    } catch (e) {
      expect((e as Error).message).toMatch(/PORT/);
      expect((e as Error).message).toMatch(/LIMIT/);
      expect((e as Error).message).toMatch(/X_URL/);
    }
  });
  it("accepts an empty optional URL as unset", () => {
    expect(readEnv(spec, { X_URL: "" }).X_URL).toBeUndefined();
    expect(readEnv(spec, { X_URL: "http://stormwater:7001" }).X_URL).toBe("http://stormwater:7001");
  });
});
