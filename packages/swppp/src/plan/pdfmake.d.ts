// The part of pdfmake 0.3 (server build) this package uses; pdfmake ships no types.
declare module "pdfmake" {
  interface OutputDocument {
    getBuffer(): Promise<Buffer>;
  }
  interface VirtualFs {
    existsSync(name: string): boolean;
    writeFileSync(name: string, content: string, encoding: "base64"): void;
  }
  export interface PdfMake {
    virtualfs: VirtualFs;
    setFonts(fonts: Record<string, Record<"normal" | "bold" | "italics" | "bolditalics", string>>): void;
    setUrlAccessPolicy(allow: (url: string) => boolean): void;
    setLocalAccessPolicy(allow: (path: string) => boolean): void;
    createPdf(doc: object, options?: object): OutputDocument;
  }
  const pdfmake: PdfMake;
  export default pdfmake;
}

declare module "pdfmake/build/vfs_fonts.js" {
  /** Roboto, base64-encoded, as pdfmake ships it. */
  const vfs: Record<string, string>;
  export default vfs;
}
