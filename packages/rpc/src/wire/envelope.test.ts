import { afterEach, describe, expect, it, vi } from "vitest";
import fc from "fast-check";
import { Code, ConnectError } from "@connectrpc/connect";
import { encodeEnvelope } from "@connectrpc/connect/protocol";
import { END_STREAM_FLAG, EnvelopeReader } from "./envelope.js";

/** The bytes of `envelopes`, cut at `cuts` (positions in the whole), as chunks. */
function chunked(envelopes: { flags: number; data: Uint8Array }[], cuts: number[]): Buffer[] {
  const whole = Buffer.concat(envelopes.map((e) => encodeEnvelope(e.flags, e.data)));
  const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const c of [...at, whole.length]) {
    chunks.push(whole.subarray(from, c));
    from = c;
  }
  return chunks;
}

function readAll(reader: EnvelopeReader, chunks: Buffer[]) {
  return chunks.flatMap((c) => reader.push(c)).map((e) => ({ flags: e.flags, data: Buffer.from(e.data) }));
}

describe("EnvelopeReader", () => {
  afterEach(() => vi.restoreAllMocks());

  it("gives every envelope whole and in order, however the stream is cut into chunks", () => {
    const envelope = fc.record({ flags: fc.constantFrom(0, END_STREAM_FLAG), data: fc.uint8Array({ maxLength: 300 }) });
    fc.assert(
      fc.property(fc.array(envelope, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 40 }), (envelopes, cuts) => {
        const reader = new EnvelopeReader(1000);
        expect(readAll(reader, chunked(envelopes, cuts))).toEqual(envelopes.map((e) => ({ flags: e.flags, data: Buffer.from(e.data) })));
        expect(reader.buffered).toBe(0);
      }),
    );
  });

  it("splits a prefix across chunks and answers an envelope as soon as its last byte is in", () => {
    const reader = new EnvelopeReader(100);
    const bytes = Buffer.from(encodeEnvelope(0, new Uint8Array([1, 2, 3])));
    expect(reader.push(bytes.subarray(0, 2))).toEqual([]);
    expect(reader.push(bytes.subarray(2, 6))).toEqual([]);
    expect(reader.buffered).toBe(6);
    const [got] = reader.push(Buffer.concat([bytes.subarray(6), Buffer.from([0, 0])]));
    expect([got.flags, [...got.data]]).toEqual([0, [1, 2, 3]]);
    // The start of the next envelope stays buffered (a truncated stream, if it ends here).
    expect(reader.buffered).toBe(2);
  });

  it("joins a large envelope's chunks once, when it is whole", () => {
    const data = new Uint8Array(136_000).map((_, i) => i % 251);
    const chunks = chunked([{ flags: 0, data }], Array.from({ length: 9 }, (_, i) => (i + 1) * 16_384));
    const concat = vi.spyOn(Buffer, "concat");
    const reader = new EnvelopeReader(200_000);
    const got = chunks.flatMap((c) => reader.push(c));
    expect(got).toHaveLength(1);
    expect(Buffer.compare(Buffer.from(got[0].data), Buffer.from(data))).toBe(0);
    expect(concat).toHaveBeenCalledTimes(1);
  });

  it("refuses compressed and oversized messages by their prefix, before their bytes arrive", () => {
    const compressed = new EnvelopeReader(100);
    expect(() => compressed.push(Buffer.from([0b01, 0, 0, 0, 1]))).toThrow(expect.objectContaining({ code: Code.InvalidArgument }));
    const oversized = new EnvelopeReader(100);
    let err: unknown;
    try {
      oversized.push(Buffer.from([0, 0, 0, 0, 101]));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.ResourceExhausted);
    expect((err as ConnectError).rawMessage).toBe("message larger than 100 bytes");
  });
});
