// What a file is, read from its first bytes, never from a name or a declared type.

const HEIC_BRANDS = new Set(["heic", "heix", "heim", "heis", "hevc", "hevx"]);
/** Generic HEIF brands: an image is HEIC only when a compatible brand says so (AVIF uses mif1 too). */
const HEIF_GENERIC = new Set(["mif1", "msf1"]);

function ascii(b: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...b.subarray(from, to));
}

/** image/jpeg, image/png, image/webp or image/heic; undefined for anything else. */
export function imageType(b: Uint8Array): string | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, n) => b[n] === x)) return "image/png";
  if (b.length >= 12 && ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WEBP") return "image/webp";
  if (b.length >= 16 && ascii(b, 4, 8) === "ftyp") {
    const boxSize = Math.min(b.length, (b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!);
    const major = ascii(b, 8, 12);
    if (HEIC_BRANDS.has(major)) return "image/heic";
    if (HEIF_GENERIC.has(major)) {
      for (let at = 16; at + 4 <= boxSize; at += 4) if (HEIC_BRANDS.has(ascii(b, at, at + 4))) return "image/heic";
    }
  }
  return undefined;
}

/** Photo file extensions in an export, by media type. */
export const IMAGE_EXTENSIONS: Record<string, string> = { "image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/heic": "heic" };

/** A Word (OOXML) document is a ZIP: it starts with a local file header. */
export function isZip(b: Uint8Array): boolean {
  return b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
}

export function isPdf(b: Uint8Array): boolean {
  return b.length >= 5 && ascii(b, 0, 5) === "%PDF-";
}
