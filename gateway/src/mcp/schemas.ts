// Tool schemas, derived from the route table rather than written again:
// - input: the route's documented body (a field table via fieldTableSchema: SITE_FIELDS,
//   PROJECT_FIELDS) or its path and query parameters (also from the field tables), with
//   unknown fields refused as the REST parser refuses them;
// - output: the route's documented success schema, whose components come from the proto
//   descriptors through the OpenAPI builder, made self-contained with `$defs`.
import type { RouteSpec } from "../http/route-table.js";
import { buildOpenApi } from "../surfaces/meta/openapi.js";

type Schema = Record<string, unknown>;

export function inputSchemaOf(route: RouteSpec): Schema {
  const { doc } = route;
  if (route.method === "POST") {
    if (!doc.body) throw new Error(`${route.method} ${route.url} documents no body`);
    return structuredClone(doc.body);
  }
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [name, p] of Object.entries(doc.params ?? {})) {
    properties[name] = { ...p.schema, description: p.description };
    required.push(name);
  }
  for (const [name, q] of Object.entries(doc.query ?? {})) {
    properties[name] = { ...q.schema, description: q.description };
    if (q.required) required.push(name);
  }
  return { type: "object", additionalProperties: false, properties, ...(required.length ? { required } : {}) };
}

/** Output schemas of every route, keyed by "METHOD url", each with only the `$defs` it reaches. */
export function outputSchemas(routes: RouteSpec[]): Map<string, Schema> {
  // Only the schemas are read here; the sandbox key appears in descriptions alone.
  const openapi = buildOpenApi(routes, "") as { components: { schemas: Record<string, Schema> } };
  const defs = openapi.components.schemas;
  const out = new Map<string, Schema>();
  for (const r of routes) {
    const root = rewriteRefs(r.doc.success.schema) as Schema;
    const reached = new Set<string>();
    const visit = (s: unknown) => {
      for (const name of refsIn(s)) {
        if (reached.has(name)) continue;
        if (!defs[name]) throw new Error(`${r.method} ${r.url}: no schema component ${name}`);
        reached.add(name);
        visit(defs[name]);
      }
    };
    visit(r.doc.success.schema);
    const $defs = Object.fromEntries([...reached].sort().map((n) => [n, rewriteRefs(defs[n])]));
    out.set(`${r.method} ${r.url}`, reached.size ? { ...root, $defs } : root);
  }
  return out;
}

const COMPONENT_REF = "#/components/schemas/";

function refsIn(s: unknown): string[] {
  if (Array.isArray(s)) return s.flatMap(refsIn);
  if (!s || typeof s !== "object") return [];
  return Object.entries(s).flatMap(([k, v]) => (k === "$ref" && typeof v === "string" && v.startsWith(COMPONENT_REF) ? [v.slice(COMPONENT_REF.length)] : refsIn(v)));
}

function rewriteRefs(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(rewriteRefs);
  if (!s || typeof s !== "object") return s;
  return Object.fromEntries(
    Object.entries(s).map(([k, v]) => [k, k === "$ref" && typeof v === "string" && v.startsWith(COMPONENT_REF) ? `#/$defs/${v.slice(COMPONENT_REF.length)}` : rewriteRefs(v)]),
  );
}
