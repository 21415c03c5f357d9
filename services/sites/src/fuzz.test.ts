// Every RPC, fed arbitrary requests built from its own descriptor (texts with NULs and odd
// characters, NaN and infinite numbers, random bytes, unknown enum values, real and made-up ids),
// answers or refuses in the service's vocabulary: never Internal or Unknown, on either database.
import { expect, it } from "vitest";
import fc from "fast-check";
import { create, type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { SitesService } from "@permits/proto/sites/v1/sites";
import { ACCOUNT, ACTOR, Code, eachDatabase, JPEG, newSite, report } from "./testing.js";

const RUNS = Number(process.env.FUZZ_SITES_RUNS ?? 25);
const ANSWERED = new Set([Code.InvalidArgument, Code.NotFound, Code.FailedPrecondition]);

const text = (known: string[]) => fc.oneof(fc.constantFrom(...known), fc.string({ maxLength: 30 }), fc.string({ unit: "binary", maxLength: 30 }), fc.constantFrom("", "\u0000", "2026-11-20", "2026-02-30", "x".repeat(3000)));
const number = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, Infinity, -1, 0, 0.25, 1e9));

/** An arbitrary value for a field; `known` are ids and dates that exist, so some calls go deep. */
function valueOf(field: DescField, known: string[], depth: number): fc.Arbitrary<unknown> {
  const scalar = (t: ScalarType): fc.Arbitrary<unknown> => {
    switch (t) {
      case ScalarType.STRING:
        return text(known);
      case ScalarType.BYTES:
        return fc.oneof(fc.uint8Array({ maxLength: 64 }), fc.constant(JPEG), fc.constant(Buffer.from('{"datasetVersion":"v","permit":null,"requirements":[{"id":"retention.x","unit":"years","value":9}]}')));
      case ScalarType.BOOL:
        return fc.boolean();
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return number;
      case ScalarType.INT64:
      case ScalarType.UINT64:
        return fc.bigInt({ min: 0n, max: 1000n });
      default:
        return fc.integer({ min: -3, max: 5 });
    }
  };
  switch (field.fieldKind) {
    case "scalar":
      return scalar(field.scalar);
    case "enum":
      return fc.integer({ min: -1, max: 4 });
    case "message":
      return depth > 2 ? fc.constant(undefined) : fc.option(messageOf(field.message, known, depth + 1), { nil: undefined });
    case "list":
      if (field.listKind === "message") return depth > 2 ? fc.constant([]) : fc.array(messageOf(field.message, known, depth + 1), { maxLength: 3 });
      return fc.array(field.listKind === "scalar" ? scalar(field.scalar) : fc.integer({ min: 0, max: 3 }), { maxLength: 3 });
    default:
      return fc.constant(undefined);
  }
}

function messageOf(desc: DescMessage, known: string[], depth = 0): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(Object.fromEntries(desc.fields.map((f) => [f.localName, valueOf(f, known, depth)])), { requiredKeys: [] });
}

eachDatabase((h) => {
  it.each(Object.values(SitesService.method).map((m) => [m.localName, m] as const))("%s answers arbitrary requests in its own vocabulary", async (_name, method) => {
    const c = h().client;
    const siteId = await newSite(h());
    const s = { accountId: ACCOUNT, actor: ACTOR, siteId };
    const draft = (await c.createInspectionDraft({ ...s, report: report() })).inspection!.id;
    const known = [ACCOUNT, ACTOR, siteId, draft, "f1", "2026-11-20"];
    const call = (c as unknown as Record<string, (r: unknown) => Promise<unknown>>)[method.localName]!;
    await fc.assert(
      fc.asyncProperty(messageOf(method.input, known), async (init) => {
        let request;
        try {
          request = create(method.input, init as never);
        } catch {
          return; // a value the message itself cannot hold (the wire would not carry it either)
        }
        try {
          await call(request);
        } catch (e) {
          const err = ConnectError.from(e);
          expect(ANSWERED.has(err.code), `${Code[err.code]}: ${err.rawMessage}`).toBe(true);
        }
      }),
      { numRuns: RUNS },
    );
  }, 60_000);
});
