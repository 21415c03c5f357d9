// The vocabulary of every path comes from the route table: a wrong method on a route, and an
// unknown path under it, answer in that route's surface vocabulary.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbedded, type Embedded } from "../../../test/support/embedded.js";
import type { RouteSpec } from "./route-table.js";
import { unknownPathSurface } from "./route-table.js";

const spec = (url: string, surface: RouteSpec["surface"]) => ({ url, surface }) as RouteSpec;

describe("unknownPathSurface", () => {
  const of = unknownPathSurface([
    spec("/api/v1/determine", "stormwater"),
    spec("/api/v1/determine/nwp", "nwp"),
    spec("/api/v1/nwp/:number", "nwp"),
    spec("/api/v1/state/:code/401", "nwp"),
    spec("/recover", "nwp"),
  ]);
  it.each([
    ["/api/v1/determine/nwpx", "stormwater"], // /api/v1/determine is wholly its prefix
    ["/api/v1/determine/nwp/extra", "nwp"],
    ["/api/v1/nwp/29/extra?x=1", "nwp"],
    ["/api/v1/state/CA/402", "nwp"],
    ["/recover/again", "nwp"],
    ["/api/v1/nwpzzz", "stormwater"], // only /api/v1 shared: the first route's surface
    ["/elsewhere", "stormwater"],
  ] as const)("%s -> %s", (url, surface) => expect(of(url)).toBe(surface));
});

describe("every route of the table answers a wrong method and an unknown subpath in its own vocabulary", () => {
  let gw: Embedded;
  let endpoints: { method: string; path: string; surface: string }[];
  beforeAll(async () => {
    gw = await startEmbedded();
    endpoints = JSON.parse((await gw.app.inject({ method: "GET", url: "/api/v1" })).body).data.endpoints;
  }, 60_000);
  afterAll(async () => gw?.close());

  const fill = (path: string) => path.replace("{number}", "29").replace("{code}", "CA");
  const vocabulary = (body: Record<string, any>) => (typeof body.request_id === "string" ? "stormwater" : typeof body.error?.requestId === "string" ? "nwp" : "none"); // eslint-disable-line @typescript-eslint/no-explicit-any

  it("the index lists routes of both surfaces", () => {
    expect(endpoints.some((e) => e.surface.startsWith("nwp"))).toBe(true);
    expect(endpoints.some((e) => e.surface.startsWith("stormwater"))).toBe(true);
  });

  it("each route: 405 and an unknown subpath 404, in the route's vocabulary", async () => {
    for (const e of endpoints) {
      const expected = e.surface.startsWith("nwp") ? "nwp" : "stormwater";
      const wrong = await gw.app.inject({ method: e.method === "GET" ? "DELETE" : "GET", url: fill(e.path) });
      expect([e.path, wrong.statusCode, vocabulary(JSON.parse(wrong.body))]).toEqual([e.path, 405, expected]);
      const unknown = await gw.app.inject({ method: e.method as "GET" | "POST", url: `${fill(e.path)}/zzz/unknown` }); // two segments: no parameter route can match
      expect([e.path, unknown.statusCode, vocabulary(JSON.parse(unknown.body))]).toEqual([e.path, 404, expected]);
    }
  });
});
