// Checks a response against the OpenAPI document the gateway serves: the operation must declare
// the status, and a JSON body must match that response's schema. The surface suites run every
// response they receive through it, so the document cannot drift from what the gateway answers.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ValidateFunction } from "ajv";

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };

export interface OpenApiCheck {
  /** Problems of one response; empty when the document declares it. */
  problems(method: string, url: string, status: number, contentType: string | undefined, body: string): string[];
  /** Problems of a JSON request body against the operation's requestBody schema; empty when valid. */
  requestProblems(method: string, url: string, body: unknown): string[];
}

const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

export function openApiCheck(doc: Doc): OpenApiCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc as object, "openapi");
  const templates = Object.keys(doc.paths).map((p) => ({ p, re: new RegExp(`^${p.replace(/\{\w+\}/g, "[^/]+")}$`) }));
  const compiled = new Map<string, ValidateFunction>();
  const validator = (ref: string) => {
    let validate = compiled.get(ref);
    if (!validate) compiled.set(ref, (validate = ajv.compile({ $ref: ref })));
    return validate;
  };
  const templateOf = (url: string) => templates.find((t) => t.re.test(url.split("?")[0]))?.p;
  return {
    requestProblems(method, url, body) {
      const template = templateOf(url);
      if (!template) return [`${method} ${url}: not an operation of the document`];
      const validate = validator(`openapi#/paths/${pointer(template)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`);
      return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
    },
    problems(method, url, status, contentType, body) {
      const template = templateOf(url);
      // A method Node refuses to parse ("get", "FOO") is no operation of the document.
      const op = template && /^[A-Z]+$/.test(method) ? doc.paths[template][method.toLowerCase()] : undefined;
      if (!template || !op) return []; // not an operation of the document (404, 405, /healthz)
      const response = op.responses[String(status)];
      if (!response) return [`${method} ${template}: status ${status} is not declared`];
      if (!contentType?.startsWith("application/json") || !response.content?.["application/json"] || body === "") return [];
      const ref = `openapi#/paths/${pointer(template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
      const validate = validator(ref);
      if (validate(JSON.parse(body))) return [];
      return (validate.errors ?? []).slice(0, 5).map((e) => `${method} ${template} ${status}: ${e.instancePath || "/"} ${e.message}`);
    },
  };
}
