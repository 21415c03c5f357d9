// The plan as DOCX (the docx library), editable by the preparer. Deterministic: docx stamps the
// clock into docProps/core.xml and into the zip entries, so both are rewritten from the model's
// createdAt; nothing else in what is drawn here carries a random id (no hyperlinks, images or lists).
// docx and fflate load on the first plan (this module's importers pay nothing until then).
import type { ParagraphChild } from "docx";
import type { Block, PlanModel } from "./model-types.js";

type Docx = typeof import("docx");
type Zip = typeof import("fflate");

const GREY = "555555";
const RED = "B00020";

function blockParagraphs({ HeadingLevel, Paragraph, TextRun }: Docx, b: Block): InstanceType<Docx["Paragraph"]>[] {
  switch (b.kind) {
    case "heading":
      return [new Paragraph({ heading: HeadingLevel.HEADING_3, children: [new TextRun(b.text)] })];
    case "text":
      return [new Paragraph({ children: [new TextRun(b.text)] })];
    case "notice":
      return [new Paragraph({ border: { left: { style: "single", size: 12, color: RED, space: 6 } }, children: [new TextRun({ text: b.text, bold: true })] })];
    case "value": {
      const runs: ParagraphChild[] = [new TextRun({ text: `${b.label}: `, bold: true }), new TextRun(b.value)];
      if (b.marker) runs.push(new TextRun({ text: ` [${b.marker}]`, bold: true, color: b.marker === "Unverified" ? RED : undefined }));
      if (!b.source) return [new Paragraph({ spacing: { after: 120 }, children: runs })];
      return [
        new Paragraph({ children: runs }),
        new Paragraph({ spacing: { after: 120 }, children: [new TextRun({ text: b.source, size: 16, color: GREY })] }),
      ];
    }
    case "blank":
      return [new Paragraph({ spacing: { after: 120 }, children: [new TextRun({ text: `${b.label}: `, bold: true }), new TextRun(b.text)] })];
  }
}

function documentOf(docx: Docx, m: PlanModel): InstanceType<Docx["Document"]> {
  const { AlignmentType, Document, Footer, Header, HeadingLevel, PageNumber, Paragraph, TextRun } = docx;
  const banner = m.draftBanner ? [new Paragraph({ alignment: AlignmentType.CENTER, children: [new TextRun({ text: m.draftBanner, bold: true, color: RED, size: 18 })] })] : [];
  const children = [
    new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(m.title)] }),
    ...m.firstPage.flatMap((b) => blockParagraphs(docx, b)),
    ...m.sections.flatMap((s, i) => [
      new Paragraph({ heading: HeadingLevel.HEADING_1, pageBreakBefore: i === 0, children: [new TextRun(s.heading)] }),
      ...s.blocks.flatMap((b) => blockParagraphs(docx, b)),
    ]),
  ];
  return new Document({
    creator: "Permit determination service",
    lastModifiedBy: "Permit determination service",
    title: m.title,
    sections: [{
      headers: { default: new Header({ children: banner }) },
      footers: {
        default: new Footer({
          children: [
            ...banner,
            new Paragraph({ alignment: AlignmentType.CENTER, children: [new TextRun({ text: `${m.footer} - page `, size: 16, color: GREY }), new TextRun({ children: [PageNumber.CURRENT], size: 16, color: GREY })] }),
          ],
        }),
      },
      children,
    }],
  });
}

const STAMP = /(<dcterms:(created|modified)[^>]*>)[^<]*(<\/dcterms:\2>)/g;

/** Re-zip with fixed dates: the same model gives the same bytes. */
function fixDates({ strFromU8, strToU8, unzipSync, zipSync }: Zip, zip: Uint8Array, at: Date): Uint8Array {
  const files = unzipSync(zip);
  const iso = at.toISOString().replace(/\.\d{3}Z$/, "Z");
  const core = files["docProps/core.xml"];
  if (core) files["docProps/core.xml"] = strToU8(strFromU8(core).replace(STAMP, `$1${iso}$3`));
  // fflate writes a zip entry's time from the local-time fields of its Date: give it the UTC fields.
  const mtime = new Date(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate(), at.getUTCHours(), at.getUTCMinutes(), at.getUTCSeconds());
  return zipSync(Object.fromEntries(Object.entries(files).map(([path, data]) => [path, [data, { mtime }]])), { mtime });
}

export async function renderPlanDocx(m: PlanModel): Promise<Uint8Array> {
  const [docx, fflate] = await Promise.all([import("docx"), import("fflate")]);
  const zip = await docx.Packer.toBuffer(documentOf(docx, m));
  return fixDates(fflate, new Uint8Array(zip), m.createdAt);
}
