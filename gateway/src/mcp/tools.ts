// The MCP tool catalogue: one tool per public capability, each a thin transport over the REST
// route for the same capability (named by "METHOD /path" in the route table). Inputs, outputs,
// keys, tiers, metering and errors are the route's; this file adds only what a model reads:
// names, descriptions and the short text summary of a result.
import { count } from "@permits/rules";
import type { HttpMethod } from "../http/route-table.js";

export interface ToolDef {
  name: string;
  title: string;
  /** The REST route this tool forwards to, as declared in the route table. */
  route: `${HttpMethod} ${string}`;
  description: string;
  /** One or two lines on a successful REST body; the full body is the structured result. */
  summarize: (body: Record<string, unknown>) => string;
}

const NEVER_DOC1 =
  "It never gives legal or engineering advice, never inspects the site and never issues or guarantees a permit; confirm with the permitting authority named.";
const NEVER_DOC2 =
  "It never gives legal advice, never delineates wetlands and never decides whether waters of the United States are present (only a Corps district makes that jurisdictional determination); confirm with the Corps district.";
const HONESTY =
  "Any value whose confidence is `unverified` must be shown to the user as Unverified, never stated as fact; each citation's `basis` says what it rests on (official-text, agency-form, prior-edition, agency-page, secondary, unsourced). `null` means not known (never false), and an empty list of requirements never means nothing is required.";
const KEY_DOC1 = "Key optional (Authorization: Bearer or X-API-Key on the MCP connection); each call spends one unit of the caller's rate budget, exactly as the REST endpoint.";
const KEY_DOC2 = "Needs an NWP key on the MCP connection (the public sandbox key svc_sandbox_public works); each call spends one unit of the caller's rate budget, exactly as the REST endpoint.";
const SITE_HINT =
  "Give state and activity, and acres (alias of disturbedAcres) for construction. Tri-state fields (dischargesToImpairedWater, dischargesToTier2Water) take true, false or null; null or omitted means unchecked, never assumed false. Unknown fields are rejected.";
const PROJECT_HINT =
  "Give state, district (a Corps district code, see list_corps_districts), activity (see list_nwp_activities), aquaticResourceType and permanentImpactAcres. Unknown fields are rejected; an unknown identifier is answered with every valid value.";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const data = (b: Json): Json => (b.data ?? {}) as Json;

export const TOOLS: ToolDef[] = [
  {
    name: "determine_stormwater_permit",
    title: "Stormwater permit determination",
    route: "POST /api/v1/determine",
    description: `Decides which US stormwater (NPDES) permit governs a construction or industrial site and whether coverage is required, with the permitting authority, the eligibility screens and every requirement with its permit citation. ${SITE_HINT} ${NEVER_DOC1} ${HONESTY} ${KEY_DOC1}`,
    summarize: (b) => {
      const d = data(b);
      return `Coverage: ${d.coverage ?? "unknown"} (${confidenceWord(d.confidence)}). ${d.coverageReason ?? ""} ${permitLine(d.permit)}`.trim();
    },
  },
  {
    name: "get_stormwater_requirements",
    title: "Stormwater permit requirements for a site",
    route: "GET /api/v1/requirements",
    description: `Same engine and inputs as determine_stormwater_permit, projected to the requirements of the governing permit (each with its citation), the coverage verdict, screens and notices. ${SITE_HINT} ${NEVER_DOC1} ${HONESTY} ${KEY_DOC1}`,
    summarize: (b) => {
      const d = data(b);
      return `Coverage: ${d.coverage ?? "unknown"} (${confidenceWord(d.confidence)}). ${permitLine(d.permit)} ${count(d.requirementCount ?? 0, "requirement", "requirements")} listed${d.requirementCount === 0 ? " (an empty list does not mean nothing is required; read the notices)" : ""}.`;
    },
  },
  {
    name: "list_stormwater_jurisdictions",
    title: "Stormwater jurisdictions",
    route: "GET /api/v1/jurisdictions",
    description: `Lists all 56 US states, territories and DC with their stormwater permitting authority, governing construction permit and confidence. Takes no arguments. ${HONESTY} ${KEY_DOC1}`,
    summarize: (b) => `${data(b).count ?? "?"} jurisdictions, ${data(b).verifiedCount ?? "?"} verified.`,
  },
  {
    name: "get_stormwater_jurisdiction",
    title: "One stormwater jurisdiction",
    route: "GET /api/v1/jurisdictions/:code",
    description: `The stormwater permitting authority and governing construction permit of one state, territory or DC (code: two-letter code), with its source and confidence. An unverified jurisdiction is answered with confidence unverified and the agency to confirm with; an unknown code is refused with the valid codes. ${HONESTY} ${KEY_DOC1}`,
    summarize: (b) => {
      const d = data(b);
      return `${d.name ?? d.code} (${d.code}): ${d.permitName ?? "no governing permit identified"}; authority ${d.agencyName ?? "unknown"}; confidence ${d.confidence ?? "unknown"}.`;
    },
  },
  {
    name: "get_stormwater_credential_gate",
    title: "Preparer credential gate of a state",
    route: "GET /api/v1/credentials/:code",
    description: `Whether a state requires a credentialed preparer (or inspector) for stormwater plans, the qualifying routes, and whether a generated document would be a deliverable or only a draft for a credentialed person to review. code: two-letter state code; acres: optional site acres, to tell whether a threshold gate applies. A gate of \`unknown\` must never be read as open. ${NEVER_DOC1} ${HONESTY} ${KEY_DOC1}`,
    summarize: (b) => {
      const d = data(b);
      return `${d.name ?? d.state}: credential gate ${d.gate ?? "unknown"}${d.appliesToThisSite === null || d.appliesToThisSite === undefined ? "" : d.appliesToThisSite ? " (applies to this site)" : " (does not apply to this site)"}; document status ${d.documentStatus ?? "unknown"}; confidence ${d.confidence ?? "unknown"}.`;
    },
  },
  {
    name: "determine_nationwide_permit",
    title: "Section 404 nationwide permit determination",
    route: "POST /api/v1/determine/nwp",
    description: `Screens one wetland or waterway impact against the 2026 Section 404 nationwide permits (NWPs) mapped to its activity: a verdict (nwp-likely, nwp-with-pcn, individual-permit-likely, insufficient-data), each candidate permit with reasons and citations, pre-construction notification (PCN) triggers (pcn.required is true wherever a notification cannot be ruled out, and pcn.because says why), the Corps district and state Section 401 layers, and the coverage gaps it did not screen. ${PROJECT_HINT} ${NEVER_DOC2} ${HONESTY} ${KEY_DOC2}`,
    summarize: (b) => {
      const d = data(b);
      return `Verdict: ${d.verdict ?? "unknown"} (${confidenceWord(d.confidence)}). ${d.headline ?? ""}${Array.isArray(d.coverageGaps) && d.coverageGaps.length ? ` ${count(d.coverageGaps.length, "coverage gap", "coverage gaps")} listed: read ${d.coverageGaps.length === 1 ? "it" : "them"} before relying on the verdict.` : ""}`.trim();
    },
  },
  {
    name: "determine_nationwide_permit_batch",
    title: "Batch of nationwide permit determinations (Pro)",
    route: "POST /api/v1/determine/batch",
    description: `Up to 100 nationwide permit determinations in one call (projects: an array of the inputs of determine_nationwide_permit). Each project is validated and decided independently; results keep input order; one invalid project never discards the batch. Pro keys only (others get upgrade_required); counts as one metered unit. ${NEVER_DOC2} ${HONESTY}`,
    summarize: (b) => {
      const m = (b.meta ?? {}) as Json;
      const items = Array.isArray(b.data) ? (b.data as Json[]) : [];
      const verdicts = items.map((i) => (i.ok ? `#${i.index}: ${i.determination?.verdict ?? "?"}` : `#${i.index}: ${i.error?.code ?? "error"}`));
      return `${count(Number(m.count ?? items.length), "project", "projects")}: ${m.succeeded ?? "?"} decided, ${m.failed ?? "?"} refused. ${verdicts.join("; ")}`.trim();
    },
  },
  {
    name: "get_nationwide_permit",
    title: "One nationwide permit",
    route: "GET /api/v1/nwp/:number",
    description: `One 2026 nationwide permit by number: title, acreage and stream-bed limits, PCN conditions, notes and sources. Numbers 26, 47 and 56 are reserved and are refused with the valid set. ${HONESTY} ${KEY_DOC2}`,
    summarize: (b) => `NWP ${data(b).number}: ${data(b).title ?? ""} (confidence ${data(b).confidence ?? "unknown"}).`,
  },
  {
    name: "list_nationwide_permits",
    title: "All nationwide permits",
    route: "GET /api/v1/nwp",
    description: `The whole 2026 nationwide permit ruleset, every permit with its limits, PCN conditions and sources. Takes no arguments. ${HONESTY} ${KEY_DOC2}`,
    summarize: (b) => `${data(b).count ?? "?"} nationwide permits in ruleset ${((b.meta as Json)?.ruleset as Json)?.id ?? "?"}.`,
  },
  {
    name: "list_corps_districts",
    title: "Corps districts",
    route: "GET /api/v1/district",
    description: `All 38 US Army Corps of Engineers districts with the states they cover and whether their regional conditions are compiled. Takes no arguments. ${HONESTY} ${KEY_DOC2}`,
    summarize: (b) => `${data(b).count ?? "?"} Corps districts.`,
  },
  {
    name: "get_corps_district",
    title: "One Corps district",
    route: "GET /api/v1/district/:code",
    description: `One US Army Corps of Engineers district by code (e.g. SPK): states covered, regulatory office, and regional conditions where compiled. ${HONESTY} ${KEY_DOC2}`,
    summarize: (b) => `${data(b).code} ${data(b).name ?? ""}: regional conditions ${data(b).conditionsCompiled ? "included" : "not included (not applied by the determination)"}.`,
  },
  {
    name: "get_state_401_certification",
    title: "State Section 401 certification record",
    route: "GET /api/v1/state/:code/401",
    description: `The Section 401 water quality certification record of a state or territory for the 2026 nationwide permits (code: two-letter code): certifying authority, known decisions, and whether they are compiled. ${NEVER_DOC2} ${HONESTY} ${KEY_DOC2}`,
    summarize: (b) => `${data(b).name ?? data(b).code}: certifier ${data(b).certifyingAuthority ?? "unknown"}; decisions ${data(b).certificationCompiled ? "included" : "not included"}; confidence ${data(b).confidence ?? "unknown"}.`,
  },
  {
    name: "list_nwp_activities",
    title: "Activity identifiers",
    route: "GET /api/v1/activity",
    description: `The activity identifiers accepted by determine_nationwide_permit and the nationwide permits each is screened against. Takes no arguments. ${KEY_DOC2}`,
    summarize: (b) => `${data(b).count ?? "?"} activities.`,
  },
  {
    name: "get_data_coverage",
    title: "What the data holds",
    route: "GET /api/v1/coverage",
    description:
      "What this service holds before you ask: both dataset versions, facts per basis (official-text, agency-form, prior-edition, agency-page, secondary, unsourced) and confidence, facts not held, and per jurisdiction and per nationwide permit what is held and at which confidence. Takes no arguments and spends no budget. Only official-text and agency-form facts may be verified; a fact on another basis can only make an answer more cautious.",
    summarize: (b) => {
      const d = data(b);
      const sw = (d.stormwater ?? {}) as Json;
      const nwp = (d.nwp ?? {}) as Json;
      return `Stormwater dataset ${sw.datasetVersion ?? "?"} (${(sw.jurisdictions ?? []).length} jurisdictions); NWP dataset ${nwp.datasetVersion ?? "?"} (${(nwp.permits ?? []).length} permits).`;
    },
  },
  {
    name: "get_data_changes",
    title: "What changed in the data since a version",
    route: "GET /api/v1/changes",
    description:
      "Every fact added, changed or removed after a dataset version (since: the datasetVersion a stored stormwater answer carries, or either dataset's datasetVersion from get_data_coverage), with value, basis, confidence, source and checkedOn before and after, grouped by jurisdiction, permit or area (stormwater) or by nationwide permit (nwp). Recompute stored answers about the groups listed. An unknown version is refused with every known version. Spends no budget.",
    summarize: (b) => {
      const d = data(b);
      const groups = Array.isArray(d.groups) ? (d.groups as Json[]).map((g) => `${g.kind} ${g.id}`) : [];
      const named = groups.length > 12 ? `${groups.slice(0, 12).join(", ")} and ${groups.length - 12} more` : groups.join(", ");
      return `${d.dataset ?? "?"} dataset: ${d.changeCount ?? 0} change(s) after ${d.since ?? "?"} (current ${d.currentVersion ?? "?"})${named ? `, in ${named}` : ""}.`;
    },
  },
  {
    name: "get_my_usage",
    title: "My usage and limits",
    route: "GET /api/v1/usage",
    description:
      "The caller's document 1 tier, every rate window (limit, used, remaining, reset as Unix seconds) and the monthly quota where the plan has one, for the key sent on the MCP connection (or the calling IP without a key). Takes no arguments and spends no budget.",
    summarize: (b) => {
      const d = data(b);
      const windows = Array.isArray(d.windows) ? (d.windows as Json[]).map((w) => `${w.remaining}/${w.limit} left this ${w.name}`).join(", ") : "";
      return `Tier ${d.tier ?? "unknown"}${d.billable ? " (billable)" : ""}: ${windows}.`;
    },
  },
];

/** The answer's overall confidence, as a model should repeat it. */
function confidenceWord(c: unknown): string {
  return c === "verified" ? "verified" : "unverified: show it as Unverified, never as fact";
}

function permitLine(permit: unknown): string {
  if (!permit || typeof permit !== "object") return "No governing permit identified.";
  const p = permit as Json;
  return `Permit: ${p.name ?? p.id} (${p.authority ?? p.agencyName ?? "authority unknown"}; confidence ${p.confidence ?? "unknown"}).`;
}

/** How many values in a body carry `confidence: "unverified"`. */
export function countUnverified(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countUnverified(v), 0);
  if (!value || typeof value !== "object") return 0;
  let n = 0;
  for (const [k, v] of Object.entries(value)) n += k === "confidence" && v === "unverified" ? 1 : countUnverified(v);
  return n;
}
