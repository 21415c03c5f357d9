// The Connect streaming protocol's framing (5 bytes: flags, then the big-endian length), read
// incrementally from the chunks of an HTTP/2 stream. Writing uses connect's own encodeEnvelope;
// its decoder is not exported, and web streams cost more than these few lines.
import { Code, ConnectError } from "@connectrpc/connect";

export interface Envelope {
  flags: number;
  data: Uint8Array;
}

/** The end-of-stream message of the Connect streaming protocol carries this flag. */
export const END_STREAM_FLAG = 0b10;
const COMPRESSED_FLAG = 0b01;

export class EnvelopeReader {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly maxBytes: number) {}

  /** The envelopes completed by this chunk, in order. */
  push(chunk: Buffer): Envelope[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: Envelope[] = [];
    while (this.pending.length >= 5) {
      const flags = this.pending[0];
      const length = this.pending.readUInt32BE(1);
      if (flags & COMPRESSED_FLAG) throw new ConnectError("compressed messages are not accepted here", Code.InvalidArgument);
      if (length > this.maxBytes) throw new ConnectError(`message larger than ${this.maxBytes} bytes`, Code.ResourceExhausted);
      if (this.pending.length < 5 + length) break;
      out.push({ flags, data: this.pending.subarray(5, 5 + length) });
      this.pending = this.pending.subarray(5 + length);
    }
    return out;
  }

  /** Bytes read but not yet part of a whole envelope (non-zero at the end: a truncated stream). */
  get buffered(): number {
    return this.pending.length;
  }
}
