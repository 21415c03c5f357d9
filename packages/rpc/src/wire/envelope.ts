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

/**
 * Reads envelopes from a stream's chunks. An answer of 100 KB arrives in HTTP/2 DATA frames of at
 * most 16 KB: the chunks are kept as they come and joined once, when the envelope they make up is
 * whole (joining at every chunk copied such an answer about five times over).
 */
export class EnvelopeReader {
  private chunks: Buffer[] = [];
  private size = 0;
  /** The whole length of the envelope being read, once its 5-byte prefix is in. */
  private need = -1;

  constructor(private readonly maxBytes: number) {}

  /** The envelopes completed by this chunk, in order. */
  push(chunk: Buffer): Envelope[] {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.size += chunk.length;
    }
    const out: Envelope[] = [];
    for (;;) {
      if (this.need < 0) {
        if (this.size < 5) break;
        const head = this.chunks[0].length >= 5 ? this.chunks[0] : this.joined();
        const length = head.readUInt32BE(1);
        if (head[0] & COMPRESSED_FLAG) throw new ConnectError("compressed messages are not accepted here", Code.InvalidArgument);
        if (length > this.maxBytes) throw new ConnectError(`message larger than ${this.maxBytes} bytes`, Code.ResourceExhausted);
        this.need = 5 + length;
      }
      if (this.size < this.need) break;
      const all = this.chunks[0].length >= this.need ? this.chunks[0] : this.joined();
      // `all` begins with the envelope, its flags first.
      out.push({ flags: all[0], data: all.subarray(5, this.need) });
      const rest = all.subarray(this.need);
      this.chunks.shift();
      if (rest.length > 0) this.chunks.unshift(rest);
      this.size -= this.need;
      this.need = -1;
    }
    return out;
  }

  /** Bytes read but not yet part of a whole envelope (non-zero at the end: a truncated stream). */
  get buffered(): number {
    return this.size;
  }

  /** All chunks held, as one. */
  private joined(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
    return this.chunks[0];
  }
}
