// GET /pricing: the page document 2 sends NWP buyers to. The same data as /api/v1/pricing, as HTML
// for browsers and in the JSON envelope for `Accept: application/json`. Rendered once at start.
import accepts from "accepts";
import type { FastifyReply, FastifyRequest } from "fastify";
import { PRICING, pricingData } from "./pricing.js";
import { staticBody, staticEnvelope } from "./static-doc.js";
import { buySection, esc } from "../checkout/pages.js";
import type { CheckoutCatalogue } from "../checkout/catalogue.js";

type Plan = { name: string; purchasable: boolean; key: string; bucket: string; limits: { window: string; limit: number; hardCeiling?: boolean }[]; features?: string[] };


function limitsText(plan: Plan): string {
  return plan.limits.map((l) => `${l.limit.toLocaleString("en-US")} per ${l.window}${l.hardCeiling ? " (hard ceiling, no overage)" : ""}`).join(", ");
}

function planRow(plan: Plan): string {
  const cells = [plan.name, plan.purchasable ? "yes" : "no", limitsText(plan), plan.bucket, plan.key, (plan.features ?? []).join("; ") || "-"];
  return `<tr>${cells.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`;
}

export function pricingHtml(sandboxKey: string, pricing: typeof PRICING = PRICING, buy = ""): string {
  const sections = pricing.surfaces.map((s) => {
    const title = s.surface === "stormwater" ? "Stormwater permits (construction and industrial sites)" : "Section 404 nationwide permits (NWP: work in wetlands and streams)";
    return `<section><h2>${esc(title)}</h2><p>Key: ${esc(s.keyHeader)}</p>
<table><thead><tr><th>Plan</th><th>Purchasable</th><th>Limits</th><th>Counted</th><th>Key</th><th>Includes</th></tr></thead>
<tbody>${(s.plans as Plan[]).map(planRow).join("\n")}</tbody></table></section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pricing - Permit Determination API</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}table{border-collapse:collapse;width:100%}th,td{border:1px solid #ccc;padding:.4rem;text-align:left;vertical-align:top}</style>
</head><body>
<h1>Pricing</h1>
<p>${esc(pricing.note)}</p>
<p>Try it now with the public sandbox key <code>${esc(sandboxKey)}</code>: no signup, works on both the stormwater and the NWP endpoints. Send it as <code>Authorization: Bearer ${esc(sandboxKey)}</code> or <code>X-API-Key: ${esc(sandboxKey)}</code>.</p>
${sections.join("\n")}
${buy}
<h2>How to get a key</h2>
<ul>${pricing.howToGetAKey.map((t) => `<li>${esc(t)}</li>`).join("")}</ul>
<p>The same data as JSON: <a href="/api/v1/pricing">/api/v1/pricing</a>. The API reference: <a href="/docs">/docs</a> (OpenAPI: <a href="/api/openapi">/api/openapi</a>).</p>
</body></html>
`;
}

/** HTML unless the caller prefers JSON; `Vary: Accept` so caches keep the two apart. */
export function pricingPage(sandboxKey: string, checkout?: CheckoutCatalogue): (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> {
  const json = staticEnvelope(pricingData(sandboxKey));
  // Rendered once the checkout plans are read (the entitlement service may start after the gateway).
  let html: ReturnType<typeof staticBody> | undefined = checkout ? undefined : staticBody(pricingHtml(sandboxKey), "text/html; charset=utf-8");
  return async (req, reply) => {
    reply.header("vary", "Accept");
    if (accepts(req.raw).type(["html", "json"]) === "json") return json(req, reply);
    if (html) return html(req, reply);
    const read = await checkout!.read();
    const page = staticBody(pricingHtml(sandboxKey, PRICING, buySection(read?.plans, checkout!.localRefused(read?.provider))), "text/html; charset=utf-8");
    if (read) html = page;
    return page(req, reply);
  };
}
