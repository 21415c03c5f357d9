// A site's whole record as one ZIP, and the check of such a ZIP. The same record gives the same
// bytes: files in a fixed order, each with a fixed time, and manifest.json lists every other
// file's SHA-256, so a reader can tell a changed file; audit.json's hash chain tells a changed event.
import { toJson } from "@bufbuild/protobuf";
import {
  CorrectiveActionSchema,
  DeterminationSnapshotSchema,
  InspectionSchema,
  PlanVersionSchema,
  RainEventSchema,
  SiteSchema,
} from "@permits/proto/sites/v1/sites";
import { strToU8, unzipSync, zipSync, type Zippable } from "fflate";
import { sha256Hex, verifyChain } from "./audit.js";
import { IMAGE_EXTENSIONS } from "./content-types.js";
import { toCorrectiveAction, toDetermination, toInspection, toPlanVersion, toRainEvent, toSite } from "./convert.js";
import type { AuditEventRow, SiteRow, SitesDb } from "./db/schema.js";

/** Every file's time in the archive (a ZIP stores local time; this is the same date everywhere). */
const FIXED_TIME = new Date(1980, 0, 1, 0, 0, 0);
const MANIFEST = "manifest.json";
const AUDIT = "audit.json";

function json(value: unknown): Uint8Array {
  return strToU8(`${JSON.stringify(value, null, 2)}\n`);
}

/** The files of a site's export, path to bytes, in the order they are written. */
export async function exportFiles(db: SitesDb, site: SiteRow): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  files.set("site.json", json(toJson(SiteSchema, toSite(site))));

  const determinations = await db.selectFrom("determinations").selectAll().where("site_id", "=", site.id).orderBy("saved_at").orderBy("id").execute();
  for (const d of determinations) {
    const { answerJson, ...meta } = toJson(DeterminationSnapshotSchema, toDetermination(d)) as Record<string, unknown>;
    void answerJson;
    files.set(`determinations/${d.id}.json`, json(meta));
    // The answer exactly as it was saved.
    files.set(`determinations/${d.id}.answer.json`, new Uint8Array(d.answer_json));
  }

  const plans = await db.selectFrom("plan_versions").selectAll().where("site_id", "=", site.id).orderBy("version").execute();
  for (const p of plans) {
    files.set(`plans/v${p.version}.json`, json(toJson(PlanVersionSchema, toPlanVersion(p))));
    files.set(`plans/v${p.version}.docx`, new Uint8Array(p.docx));
    files.set(`plans/v${p.version}.pdf`, new Uint8Array(p.pdf));
  }

  const inspections = await db.selectFrom("inspections").selectAll().where("site_id", "=", site.id).orderBy("inspection_id").orderBy("version").execute();
  const photos = await db.selectFrom("photos").selectAll().where("site_id", "=", site.id).orderBy("added_in_version").orderBy("created_at").orderBy("id").execute();
  const latest = new Map<string, number>();
  for (const i of inspections) latest.set(i.inspection_id, Math.max(latest.get(i.inspection_id) ?? 0, Number(i.version)));
  for (const i of inspections) files.set(`inspections/${i.inspection_id}-v${i.version}.json`, json(toJson(InspectionSchema, toInspection(i, photos, latest.get(i.inspection_id)!))));
  for (const p of photos) files.set(`photos/${p.id}.${IMAGE_EXTENSIONS[p.content_type] ?? "bin"}`, new Uint8Array(p.content));

  const actions = await db.selectFrom("corrective_actions").selectAll().where("site_id", "=", site.id).orderBy("created_at").orderBy("id").execute();
  const events = await db.selectFrom("corrective_action_events").selectAll().where("site_id", "=", site.id).orderBy("corrective_action_id").orderBy("seq").execute();
  files.set("corrective-actions.json", json(actions.map((a) => toJson(CorrectiveActionSchema, toCorrectiveAction(a, events)))));

  const rain = await db.selectFrom("rain_events").selectAll().where("site_id", "=", site.id).orderBy("occurred_on").orderBy("recorded_at").orderBy("id").execute();
  files.set("rain-events.json", json(rain.map((r) => toJson(RainEventSchema, toRainEvent(r)))));

  const audit = await db.selectFrom("audit_events").selectAll().where("site_id", "=", site.id).orderBy("seq").execute();
  files.set(AUDIT, json(audit.map((e) => ({ ...e, seq: Number(e.seq) }))));

  const manifest = { siteId: site.id, files: Object.fromEntries([...files].map(([name, bytes]) => [name, sha256Hex(bytes)])) };
  files.set(MANIFEST, json(manifest));
  return files;
}

export function zipFiles(files: Map<string, Uint8Array>): Uint8Array {
  const entries: Zippable = {};
  for (const [name, bytes] of files) entries[name] = [bytes, { mtime: FIXED_TIME, level: 6 }];
  return zipSync(entries);
}

export interface ExportCheck {
  /** Every file listed with the hash it has, none missing or added, and the audit chain intact. */
  ok: boolean;
  /** What is wrong, in plain words; empty when ok. */
  problems: string[];
}

/** Checks an export: the manifest's hashes against the files, and the audit trail's hash chain. */
export function verifyExport(zip: Uint8Array): ExportCheck {
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(zip);
  } catch {
    return { ok: false, problems: ["the file is not a ZIP archive"] };
  }
  const problems: string[] = [];
  const manifestBytes = files[MANIFEST];
  if (!manifestBytes) return { ok: false, problems: [`${MANIFEST} is missing`] };
  const listed = (JSON.parse(new TextDecoder().decode(manifestBytes)) as { files?: Record<string, string> }).files ?? {};
  for (const [name, hash] of Object.entries(listed)) {
    const bytes = files[name];
    if (!bytes) problems.push(`${name} is listed in the manifest but missing`);
    else if (sha256Hex(bytes) !== hash) problems.push(`${name} does not match its hash in the manifest`);
  }
  for (const name of Object.keys(files)) if (name !== MANIFEST && !(name in listed)) problems.push(`${name} is not listed in the manifest`);
  const auditBytes = files[AUDIT];
  if (auditBytes) {
    const chain = verifyChain(JSON.parse(new TextDecoder().decode(auditBytes)) as AuditEventRow[]);
    if (!chain.intact) problems.push(`the audit trail's hash chain breaks at event ${chain.firstBrokenSeq}`);
  }
  return { ok: problems.length === 0, problems };
}
