// Photos of an inspection report, in the app: the files a form sent, checked before anything is
// written (each an image by its content, at most 10 MB, at most 20 a report over all its versions)
// with the reason shown beside the photos field; kept with the report's draft version (a new
// report's, or an amendment's); and each one served back to the signed-in account.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { imageType } from "@permits/sites";
import type { Photo } from "@permits/proto/sites/v1/sites";
import type { AppDeps } from "../../deps.js";
import { html, type Html } from "./html.js";
import { requireSession, type SignedIn } from "./context.js";
import type { FieldErrors } from "./form.js";
import { PHOTO_MAX_COUNT } from "./errors.js";
import { who, type SitesClient } from "./site-records.js";

export interface SentPhoto {
  filename: string;
  bytes: Buffer;
  /** The file was larger than the limit; only its first 10 MB arrived. */
  tooLarge: boolean;
}

interface FilePart {
  type: "file";
  filename?: string;
  file?: { truncated?: boolean };
  toBuffer: () => Promise<Buffer>;
}

const isFile = (v: unknown): v is FilePart => v !== null && typeof v === "object" && (v as FilePart).type === "file" && typeof (v as FilePart).toBuffer === "function";

/** The files of the `photos` field, without the empty part a form sends when none is chosen. */
export async function photosOf(req: FastifyRequest): Promise<SentPhoto[]> {
  const raw = (req.body as Record<string, unknown> | null)?.photos;
  const parts = (Array.isArray(raw) ? raw : [raw]).filter(isFile);
  const files = await Promise.all(parts.map(async (p) => ({ filename: p.filename ?? "", bytes: await p.toBuffer(), tooLarge: p.file?.truncated === true })));
  return files.filter((f) => f.bytes.length > 0 || f.filename !== "");
}

/** Why the photos cannot be kept, beside the photos field; `already` is how many the report holds. */
export function photoErrors(photos: readonly SentPhoto[], already: number, errors: FieldErrors = new Map()): FieldErrors {
  const name = (p: SentPhoto) => `"${p.filename || "a file"}"`;
  const problems = [
    ...photos.filter((p) => p.tooLarge).map((p) => `${name(p)} is larger than 10 MB, so nothing was saved. Make it smaller (most phones can send a smaller size) and send it again.`),
    ...photos.filter((p) => !p.tooLarge && !imageType(p.bytes)).map((p) => `${name(p)} is not a JPEG, PNG, WebP or HEIC photo, so nothing was saved. Choose photos only.`),
  ];
  if (already + photos.length > PHOTO_MAX_COUNT) problems.push(`A report keeps at most ${PHOTO_MAX_COUNT} photos over all its versions; it has ${already}, and ${photos.length} more were sent. Nothing was saved: choose at most ${Math.max(0, PHOTO_MAX_COUNT - already)}.`);
  if (problems.length) errors.set("photos", problems);
  return errors;
}

/** Keeps the photos with the report's draft version (checked beforehand by photoErrors). */
export async function keepPhotos(sites: SitesClient, req: SignedIn, siteId: string, inspectionId: string, photos: readonly SentPhoto[]): Promise<void> {
  for (const p of photos) await sites.addInspectionPhoto({ ...who(req), siteId, inspectionId, content: p.bytes, caption: p.filename.slice(0, 500) });
}

/** The photos field of a form, with its errors beside it. */
export function photosField(errors: FieldErrors | undefined, already = 0): Html {
  const room = PHOTO_MAX_COUNT - already;
  const hint = already ? `This report has ${already}; up to ${room} more, each at most 10 MB: JPEG, PNG, WebP or HEIC (what phones take).` : `Up to ${PHOTO_MAX_COUNT} photos, each at most 10 MB: JPEG, PNG, WebP or HEIC (what phones take).`;
  const bad = (errors?.get("photos") ?? []).length > 0;
  return html`<fieldset><legend>Photos</legend>
<label for="photos">Photos <span class="hint">${hint}</span></label>
${(errors?.get("photos") ?? []).map((e) => html`<span class="field-error" id="photos-error">${e}</span>`)}
<input id="photos" name="photos" type="file" accept="image/jpeg,image/png,image/webp,image/heic" multiple${bad ? html` aria-invalid="true" aria-describedby="photos-error"` : ""}>
</fieldset>`;
}

/** A version's photos, each linked, with the version that added it. */
export function photoList(siteId: string, photos: readonly Photo[]): Html {
  if (!photos.length) return html``;
  return html`<h2>Photos (${photos.length})</h2><ul>${photos.map((p) => html`<li><a href="/app/sites/${siteId}/photos/${p.id}">${p.caption || "Photo"}</a> <span class="muted">added in version ${p.addedInVersion}</span></li>`)}</ul>`;
}

export function photoRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get("/app/sites/:id/photos/:photo", { preHandler: requireSession }, async (req, reply) => {
    const { id, photo } = req.params as { id: string; photo: string };
    const out = await deps.clients.sites.getInspectionPhoto({ ...who(req as SignedIn), siteId: id, photoId: photo }); // NotFound for another account's
    return reply.type(out.photo!.contentType).header("content-disposition", "inline").send(Buffer.from(out.content));
  });
}
