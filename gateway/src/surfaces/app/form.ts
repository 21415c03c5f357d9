// Form fields drawn once: a label, a hint, the value sent back, and the error beside the field.
// Errors arrive as a BadRequest's violations (from the same parser the API uses, or a service);
// each is shown beside the field it names.
import { Code, ConnectError } from "@connectrpc/connect";
import { badRequestOf, ViolationReason } from "@permits/rules";
import type { FieldViolation } from "@permits/proto/common/v1/common";
import { html, type Html } from "./html.js";

export type FieldErrors = Map<string, string[]>;

/** A refused field's words on a form, by its form name and the refusal; undefined keeps the refusal's own words. */
export type FieldWords = (name: string, v: Pick<FieldViolation, "reason">) => string | undefined;

/** A form's field as its refusals are worded: its label, and what a refused answer needs (`typed`: what was typed, trimmed). */
export interface WordedField {
  label: string;
  needs: (typed: string, reason: ViolationReason) => string;
}

/**
 * A form's own words for the refusals of its fields, "Label: what it needs.", by form name: a
 * parser's or a service's own words name the API's fields, and stay the API's.
 */
export function labelledWords(fields: Record<string, WordedField>, typed: Record<string, string>): FieldWords {
  return (name, v) => {
    const field = fields[name];
    return field ? `${field.label}: ${field.needs((typed[name] ?? "").trim(), v.reason)}` : undefined;
  };
}

/**
 * A field's errors, by the field's form name (a service's "details.input.state" is "state"), in
 * the form's `words` where it has them: the API's words name its own fields, a form has labels.
 */
export function fieldErrorsOf(err: unknown, rename: (field: string) => string = (f) => f, words?: FieldWords): FieldErrors | undefined {
  if (!(err instanceof ConnectError) || err.code !== Code.InvalidArgument) return undefined;
  const out: FieldErrors = new Map();
  for (const v of badRequestOf(err)?.violations ?? [{ field: "", description: err.rawMessage, reason: ViolationReason.UNSPECIFIED }]) {
    const name = rename(v.field);
    const said = words?.(name, v) ?? v.description;
    // One sentence per field: the parser may give the same field's refusal twice in the form's words.
    if (!out.get(name)?.includes(said)) out.set(name, [...(out.get(name) ?? []), said]);
  }
  return out;
}

export function errorSummary(errors: FieldErrors | undefined): Html {
  if (!errors || errors.size === 0) return html``;
  const unplaced = errors.get("") ?? [];
  // Each field's problem links to the field: on a phone the form runs far below this box.
  const placed = [...errors].filter(([name]) => name !== "");
  return html`<div class="error-summary" role="alert"><p><strong>Nothing was saved: ${placed.length ? "check the fields marked below." : ""}</strong></p>${unplaced.map((e) => html`<p>${e}</p>`)}${placed.length ? html`<ul>${placed.flatMap(([name, list]) => list.map((e) => html`<li><a href="#${name}">${e}</a></li>`))}</ul>` : ""}</div>`;
}

interface FieldSpec {
  name: string;
  /** The element's id where one page repeats the field (one form per record); else the name. */
  id?: string;
  label: string;
  hint?: string;
  type?: "text" | "number" | "date" | "time" | "email" | "tel" | "password";
  required?: boolean;
  step?: string;
  maxlength?: number;
}

function errorsBeside(name: string, errors?: FieldErrors): Html {
  const list = errors?.get(name) ?? [];
  return html`${list.map((e) => html`<span class="field-error" id="${name}-error">${e}</span>`)}`;
}

export function input(f: FieldSpec, values: Record<string, string>, errors?: FieldErrors): Html {
  const bad = (errors?.get(f.name) ?? []).length > 0;
  const id = f.id ?? f.name;
  return html`<label for="${id}">${f.label}${f.hint ? html` <span class="hint">${f.hint}</span>` : ""}</label>
${errorsBeside(f.name, errors)}<input id="${id}" name="${f.name}" type="${f.type ?? "text"}" value="${values[f.name] ?? ""}"${f.required ? html` required` : ""}${f.step ? html` step="${f.step}"` : ""}${f.maxlength ? html` maxlength="${f.maxlength}"` : ""}${bad ? html` aria-invalid="true" aria-describedby="${f.name}-error"` : ""}>`;
}

export function textarea(f: FieldSpec, values: Record<string, string>, errors?: FieldErrors): Html {
  const id = f.id ?? f.name;
  return html`<label for="${id}">${f.label}${f.hint ? html` <span class="hint">${f.hint}</span>` : ""}</label>
${errorsBeside(f.name, errors)}<textarea id="${id}" name="${f.name}"${f.required ? html` required` : ""} maxlength="${f.maxlength ?? 2000}">${values[f.name] ?? ""}</textarea>`;
}

export function select(f: FieldSpec & { options: readonly (readonly [string, string])[] }, values: Record<string, string>, errors?: FieldErrors): Html {
  const current = values[f.name] ?? "";
  return html`<label for="${f.name}">${f.label}${f.hint ? html` <span class="hint">${f.hint}</span>` : ""}</label>
${errorsBeside(f.name, errors)}<select id="${f.name}" name="${f.name}"${f.required ? html` required` : ""}>${f.options.map(([v, words]) => html`<option value="${v}"${v === current ? html` selected` : ""}>${words}</option>`)}</select>`;
}

export function checkbox(f: FieldSpec, values: Record<string, string>, errors?: FieldErrors): Html {
  return html`${errorsBeside(f.name, errors)}<label><input type="checkbox" id="${f.id ?? f.name}" name="${f.name}" value="true"${values[f.name] === "true" ? html` checked` : ""}> ${f.label}${f.hint ? html` <span class="hint">${f.hint}</span>` : ""}</label>`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}
