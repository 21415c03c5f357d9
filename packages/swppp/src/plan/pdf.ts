// The plan as PDF (pdfmake). Fonts are pdfmake's own Roboto, bundled in the npm package as base64
// and loaded into pdfmake's in-memory file system: nothing is read from disk or fetched (both
// access policies refuse everything). Deterministic: the creation date (and so the document id
// pdfkit derives from it) comes from the model. pdfmake and its fonts (some 50 MB once loaded)
// load on the first plan, not when the package is imported.
import type { PdfMake } from "pdfmake";
import type { Block, PlanModel } from "./model-types.js";

const FONT_FILES = { normal: "Roboto-Regular.ttf", bold: "Roboto-Medium.ttf", italics: "Roboto-Italic.ttf", bolditalics: "Roboto-MediumItalic.ttf" } as const;
const RED = "#B00020";
const GREY = "#555555";

let ready: Promise<PdfMake> | null = null;
function setUp(): Promise<PdfMake> {
  ready ??= (async () => {
    const [{ default: pdfmake }, { default: vfs }] = await Promise.all([import("pdfmake"), import("pdfmake/build/vfs_fonts.js")]);
    for (const file of Object.values(FONT_FILES)) if (!pdfmake.virtualfs.existsSync(file)) pdfmake.virtualfs.writeFileSync(file, vfs[file], "base64");
    pdfmake.setFonts({ Roboto: FONT_FILES });
    pdfmake.setUrlAccessPolicy(() => false);
    pdfmake.setLocalAccessPolicy(() => false);
    return pdfmake;
  })().catch((e: unknown) => {
    ready = null; // a failed load is tried again on the next plan
    throw e;
  });
  return ready;
}

function content(b: Block): object[] {
  switch (b.kind) {
    case "heading":
      return [{ text: b.text, style: "h3" }];
    case "text":
      return [{ text: b.text, margin: [0, 0, 0, 6] }];
    case "notice":
      return [{ table: { widths: ["*"], body: [[{ text: b.text, bold: true, margin: [4, 4, 4, 4] }]] }, layout: { hLineColor: RED, vLineColor: RED }, margin: [0, 0, 0, 8] }];
    case "value":
      return [
        { text: [{ text: `${b.label}: `, bold: true }, b.value, ...(b.marker ? [{ text: ` [${b.marker}]`, bold: true, color: b.marker === "Unverified" ? RED : undefined }] : [])], margin: [0, 0, 0, b.source ? 0 : 6] },
        ...(b.source ? [{ text: b.source, fontSize: 8, color: GREY, margin: [0, 0, 0, 6] }] : []),
      ];
    case "blank":
      return [{ text: [{ text: `${b.label}: `, bold: true }, b.text], margin: [0, 0, 0, 6] }];
  }
}

function definition(m: PlanModel): object {
  const banner = m.draftBanner;
  return {
    info: { title: m.title, creator: "Permit determination service", producer: "pdfmake", creationDate: m.createdAt, modDate: m.createdAt },
    pageSize: "LETTER",
    pageMargins: [48, banner ? 64 : 48, 48, banner ? 72 : 56],
    defaultStyle: { font: "Roboto", fontSize: 10 },
    styles: { title: { fontSize: 16, bold: true, margin: [0, 0, 0, 10] }, h1: { fontSize: 13, bold: true, margin: [0, 12, 0, 6] }, h3: { fontSize: 11, bold: true, margin: [0, 6, 0, 2] } },
    header: () => (banner ? { text: banner, bold: true, color: RED, fontSize: 9, alignment: "center", margin: [48, 20, 48, 0] } : null),
    footer: (page: number, pages: number) => ({
      stack: [
        ...(banner ? [{ text: banner, bold: true, color: RED, fontSize: 8, alignment: "center" }] : []),
        { text: `${m.footer} - page ${page} of ${pages}`, fontSize: 8, color: GREY, alignment: "center" },
      ],
      margin: [48, 8, 48, 0],
    }),
    content: [
      { text: m.title, style: "title" },
      ...m.firstPage.flatMap(content),
      ...m.sections.flatMap((s, i) => [{ text: s.heading, style: "h1", pageBreak: i === 0 ? "before" : undefined }, ...s.blocks.flatMap(content)]),
    ],
  };
}

export async function renderPlanPdf(m: PlanModel): Promise<Uint8Array> {
  const pdfmake = await setUp();
  const buffer = await pdfmake.createPdf(definition(m)).getBuffer();
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
