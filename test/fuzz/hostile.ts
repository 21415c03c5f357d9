// fast-check arbitraries for hostile HTTP requests against every endpoint of both surfaces,
// /recover, /api/v1/usage and /mcp. Requests are raw bytes (see support/raw-http.ts) so nothing
// between the generator and the server tidies them up.
import { METHODS as NODE_METHODS } from "node:http";
import fc from "fast-check";

export interface Endpoint {
  method: string;
  /** With `{param}` placeholders, as the discovery index lists it. */
  path: string;
}

export interface FuzzRequest {
  method: string;
  /** The request target exactly as sent. */
  target: string;
  headers: [string, string][];
  body: string;
  framing: "length" | "chunked" | "length+chunked";
  /** Sent without a Host header. */
  noHost?: boolean;
  /** Sent in one packet after a valid request on the same connection, whose answer comes first. */
  pipelined?: boolean;
}

/** The app's pages (issue 40): outside the discovery index, answered in HTML. */
export const APP_ENDPOINTS: (Endpoint & { surface: string })[] = [
  { method: "GET", path: "/", surface: "app" },
  { method: "GET", path: "/app", surface: "app" },
  { method: "POST", path: "/app/session", surface: "app" },
  { method: "POST", path: "/app/session/end", surface: "app" },
  { method: "GET", path: "/app/sites/new", surface: "app" },
  { method: "POST", path: "/app/sites", surface: "app" },
  { method: "GET", path: "/app/sites/{id}", surface: "app" },
  { method: "POST", path: "/app/sites/{id}/plans", surface: "app" },
  { method: "GET", path: "/app/sites/{id}/plans/{file}", surface: "app" },
  { method: "POST", path: "/app/sites/{id}/inspections", surface: "app" },
  { method: "GET", path: "/app/sites/{id}/inspections/{n}", surface: "app" },
  { method: "POST", path: "/app/sites/{id}/inspections/{n}/sign", surface: "app" },
  { method: "GET", path: "/app/sites/{id}/photos/{photo}", surface: "app" },
  { method: "POST", path: "/app/sites/{id}/inspections/{n}/amendments", surface: "app" },
  { method: "POST", path: "/app/sites/{id}/corrective-actions/{n}/complete", surface: "app" },
  { method: "GET", path: "/app/sites/{id}/records.csv", surface: "app" },
];

const formBody = fc.oneof(
  fc.constantFrom("_csrf=x&api_key=svc_live_x", "api_key=", "name=%3Cscript%3E&state=TX&activity=construction&acres=5", "--x\r\nContent-Disposition: form-data; name=\"photos\"; filename=\"a.png\"\r\n\r\nGIF89a\r\n--x--\r\n", "%", "a=%ZZ&b"),
  fc.dictionary(fc.constantFrom("_csrf", "api_key", "name", "state", "acres", "inspected_on", "signed_by", "agree", "finding_1_corrective", "finding_1_due_rule", "finding_1_due_on", "__proto__"), fc.string({ maxLength: 40 })).map((d) => new URLSearchParams(d).toString()),
);

/** The valid request a pipelined one follows in the same packet. */
export const PIPELINE_PREFIX = "GET /api/v1/jurisdictions/TX HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

/** Keys the fuzzer holds: a document 1 Pro key and a document 2 Pro (legacy) key, to reach past authentication. */
export interface FuzzKeys {
  livePro: string;
  legacyPro: string;
}

export function serialize(r: FuzzRequest): Buffer {
  const body = Buffer.from(r.body, "utf8");
  const lines = [`${r.method} ${r.target} HTTP/1.1`, ...(r.noHost ? [] : ["Host: 127.0.0.1"]), ...r.headers.map(([k, v]) => `${k}: ${v}`), "Connection: close"];
  if (r.framing !== "chunked") lines.push(`Content-Length: ${body.length}`);
  if (r.framing !== "length") lines.push("Transfer-Encoding: chunked");
  const head = Buffer.from(`${r.pipelined ? PIPELINE_PREFIX : ""}${lines.join("\r\n")}\r\n\r\n`, "utf8");
  if (r.framing === "length") return Buffer.concat([head, body]);
  const chunked = body.length ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]) : Buffer.from("0\r\n\r\n");
  return Buffer.concat([head, chunked]);
}

/** The request as a reader can paste it into a test (escapes shown, long runs cut). */
export function describeRequest(r: FuzzRequest): string {
  const cut = (s: string) => (s.length > 400 ? `${s.slice(0, 400)}... (${s.length} chars)` : s);
  return JSON.stringify({ ...r, headers: r.headers.map(([k, v]) => [k, cut(v)]), body: cut(r.body) }, null, 2);
}

const VALID_SITE = { state: "TX", activity: "construction", acres: 5 };
const VALID_PROJECT = { state: "CA", district: "SPK", activity: "residential-development", aquaticResourceType: "wetland", permanentImpactAcres: 0.3 };

// Strings an attacker reaches for, and ordinary ones so some requests get deep.
const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("", " ", "CA", "TX", "NM", "SPK", "29", "construction", "__proto__", "constructor", "prototype", "toString", "hasOwnProperty",
    "NaN", "Infinity", "-1", "1e308", "null", "undefined", "true", "\u0000", "a\u0000b", "\u202e\u0041", "\ud800", "💧🌊", "' OR 1=1 --", "<script>alert(1)</script>",
    "../../etc/passwd", "%00", "${jndi:ldap://x}", "\r\nX-Injected: 1", "a\nb", "\t", "\u001b[31m"),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: fc.constantFrom("\u0000", "\u0001", "\u001f", "\u007f", "\r", "\n", "a"), maxLength: 20 }),
  // Long enough to pass every field and body limit; a batch of 101 of them stays under the
  // gateway's 16 MB drain bound, past which it closes (README) rather than reading on.
  fc.integer({ min: 1_000, max: 100_000 }).map((n) => "x".repeat(n)),
);

// Numbers as JSON text: the parser sees 1e309 and 2^64 exactly as written.
const hostileNumber: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom("0", "-0", "-1", "1e308", "-1e308", "1e309", "-1e309", "5e-324", "9007199254740993", "18446744073709551616", "123456789012345678901234567890", "0.1", "1E2", "1e-400"),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  fc.integer().map(String),
);

const jsonString = (s: string) => JSON.stringify(s);
const keyName = fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "state", "acres", "activity", "projects", "toString"), fc.string({ maxLength: 12 }));

/** Any JSON value as text, hostile leaves, a few levels deep. */
const hostileJson: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString.map(jsonString),
    hostileNumber,
    fc.constantFrom("true", "false", "null", "{}", "[]"),
    fc.array(tie("value"), { maxLength: 4 }).map((xs) => `[${xs.join(",")}]`),
    fc.array(fc.tuple(keyName, tie("value")), { maxLength: 4 }).map((kv) => `{${kv.map(([k, v]) => `${jsonString(k)}:${v}`).join(",")}}`),
  ),
})).value;

// Nesting far past any sane input: 10,000 levels of arrays or objects.
const deepNesting = fc.constantFrom("[".repeat(10_000) + "]".repeat(10_000), '{"a":'.repeat(10_000) + "1" + "}".repeat(10_000), '{"state":' + "[".repeat(5_000) + "]".repeat(5_000) + "}");

/** A valid object with some fields replaced by hostile values, extra and duplicate keys, as JSON text. */
function mutated(valid: Record<string, unknown>): fc.Arbitrary<string> {
  const fields = Object.keys(valid);
  return fc
    .record({
      replace: fc.dictionary(fc.constantFrom(...fields), hostileJson, { maxKeys: 3 }),
      extra: fc.array(fc.tuple(keyName, hostileJson), { maxLength: 2 }),
      duplicate: fc.option(fc.tuple(fc.constantFrom(...fields), hostileJson), { nil: undefined }),
      drop: fc.option(fc.constantFrom(...fields), { nil: undefined }),
    })
    .map(({ replace, extra, duplicate, drop }) => {
      const pairs: [string, string][] = fields.filter((f) => f !== drop).map((f) => [f, Object.hasOwn(replace, f) ? replace[f] : JSON.stringify(valid[f])]);
      pairs.push(...extra);
      if (duplicate) pairs.push(duplicate);
      return `{${pairs.map(([k, v]) => `${jsonString(k)}:${v}`).join(",")}}`;
    });
}

const site = fc.oneof({ weight: 3, arbitrary: fc.constant(JSON.stringify(VALID_SITE)) }, { weight: 6, arbitrary: mutated(VALID_SITE) });
const project = fc.oneof({ weight: 3, arbitrary: fc.constant(JSON.stringify(VALID_PROJECT)) }, { weight: 6, arbitrary: mutated(VALID_PROJECT) });

// Batches of exactly 100 and 101 mixed items, and small ones.
const batch = fc
  .tuple(fc.constantFrom(1, 3, 100, 101), fc.array(project, { minLength: 1, maxLength: 5 }))
  .map(([n, items]) => `{"projects":[${Array.from({ length: n }, (_, i) => items[i % items.length]).join(",")}]}`);

const garbageBody = fc.oneof(
  fc.constantFrom("", "{", "}", "[", "null", "true", "0", '""', "{}", "[]", '{"state":', "\ufeff{}", "{'state':'TX'}", "state=TX&acres=5", "{\"a\":1}{\"b\":2}"),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  deepNesting,
  fc.integer({ min: 900_000, max: 1_200_000 }).map((n) => JSON.stringify({ ...VALID_SITE, pad: "x".repeat(n) })),
);

// MCP: JSON-RPC garbage, batches, and tool calls with hostile arguments.
const TOOL_NAMES = ["determine_stormwater_permit", "get_stormwater_requirements", "get_stormwater_jurisdiction", "determine_nationwide_permit", "determine_nationwide_permit_batch", "get_nationwide_permit", "nonexistent_tool"];
const rpcId = fc.oneof(fc.integer().map(String), hostileString.map(jsonString), fc.constantFrom("null", "{}", "[]", "1e309"));
const rpcMessage = fc.oneof(
  fc.tuple(rpcId, fc.constantFrom("initialize", "tools/list", "ping", "resources/list", "prompts/get", "notifications/initialized"), fc.option(hostileJson, { nil: undefined })).map(
    ([id, method, params]) => `{"jsonrpc":"2.0","id":${id},"method":${jsonString(method)}${params === undefined ? "" : `,"params":${params}`}}`,
  ),
  fc.tuple(rpcId, fc.oneof(fc.constantFrom(...TOOL_NAMES), hostileString), fc.oneof(site, project, batch, hostileJson)).map(
    ([id, name, args]) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${jsonString(name)},"arguments":${args}}}`,
  ),
  fc.tuple(hostileString, hostileJson).map(([method, params]) => `{"jsonrpc":"2.0","id":1,"method":${jsonString(method)},"params":${params}}`),
  hostileJson,
);
const mcpBody = fc.oneof(rpcMessage, fc.array(rpcMessage, { minLength: 0, maxLength: 5 }).map((xs) => `[${xs.join(",")}]`), garbageBody);

function bodyFor(path: string): fc.Arbitrary<string> {
  if (path === "/mcp") return mcpBody;
  if (path.startsWith("/app")) return fc.oneof({ weight: 3, arbitrary: formBody }, { weight: 1, arbitrary: garbageBody });
  if (path.endsWith("/batch")) return fc.oneof({ weight: 3, arbitrary: batch }, { weight: 1, arbitrary: garbageBody });
  if (path.endsWith("/nwp")) return fc.oneof({ weight: 3, arbitrary: project }, { weight: 1, arbitrary: garbageBody });
  return fc.oneof({ weight: 3, arbitrary: site }, { weight: 1, arbitrary: garbageBody });
}

/** Percent-encodes any string, a lone surrogate included (sent as U+FFFD, as toWellFormed makes it). */
const encode = (s: string) => encodeURIComponent((s as string & { toWellFormed(): string }).toWellFormed());

// Path parameters and query values: valid ones, hostile ones, percent-encoding tricks.
const segment = fc.oneof(
  fc.constantFrom("CA", "TX", "NM", "29", "12", "SPK", "AZ-NOI"),
  fc.constantFrom("%00", "..%2f..%2fetc%2fpasswd", "%2e%2e", "%", "%ZZ", "%E0%A4%A", "%C0%AF", "%FF", "é", "a%20b", "..", ".", ""),
  hostileString.map(encode),
);
const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom("state", "activity", "acres", "disturbedAcres", "__proto__", "constructor"), fc.string({ maxLength: 8 })), fc.oneof(hostileString, hostileNumber)), { maxLength: 4 }).map(
  (kv) => (kv.length ? `?${kv.map(([k, v]) => `${encode(k)}=${encode(v)}`).join("&")}` : ""),
);
const rawQuery = fc.constantFrom("?state=%", "?state=%ZZ&activity=construction", "?state=TX&state=CA&activity=construction&acres=5", "?acres=1e309&state=TX&activity=construction", "?%00=1", "?state=TX&activity=construction&acres=5");

function target(endpoints: Endpoint[]): fc.Arbitrary<string> {
  const known = fc.tuple(fc.constantFrom(...endpoints.map((e) => e.path)), fc.array(segment, { minLength: 3, maxLength: 3 }), fc.oneof(query, rawQuery)).map(([p, segs, q]) => {
    let i = 0;
    return p.replace(/\{\w+\}/g, () => segs[i++]) + q;
  });
  const beyond = fc.tuple(fc.constantFrom(...endpoints.map((e) => e.path.replace(/\{\w+\}/g, "CA"))), segment).map(([p, s]) => `${p}/${s}`);
  const odd = fc.constantFrom("/", "*", "//api//v1", "/api/v1/./determine", "/api/v1/../api/v1/jurisdictions", "/api/v2/determine", "/API/V1/DETERMINE", "http://127.0.0.1/api/v1", "/api/v1/%2e%2e/openapi", "/api/v1/determine%00", "/api/v1/determine;x=1", "/api/v1/jurisdictions/%E0%A4%A", "/api/v1/jurisdictions/é", "/" + "a/".repeat(3000));
  return fc.oneof({ weight: 8, arbitrary: known }, { weight: 2, arbitrary: beyond }, { weight: 1, arbitrary: odd });
}

function headers(keys: FuzzKeys): fc.Arbitrary<[string, string][]> {
  const forgedLive = fc.stringMatching(/^[A-Za-z0-9]{0,40}$/).chain((s) => fc.constantFrom(`svc_live_${s}`, `svc_test_${s}`, `svc_sandbox_${s}`));
  const forgedLegacy = fc.tuple(fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/), fc.stringMatching(/^[0-9a-f]{0,64}$/)).map(([sub, sig]) => `nwp_${sub}_${sig}`);
  const key = fc.oneof(fc.constantFrom(keys.livePro, keys.legacyPro, "svc_sandbox_public"), forgedLive, forgedLegacy, hostileString);
  // Each header is present in `percent` of requests, so most requests still get past the parser.
  const optional = (name: string, percent: number, value: fc.Arbitrary<string>) =>
    fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(undefined) }, { weight: percent, arbitrary: value.map((v): [string, string] => [name, v]) });
  const mostlyJson = fc.oneof(
    { weight: 6, arbitrary: fc.constant("application/json") },
    { weight: 3, arbitrary: fc.constantFrom("application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-16", "", "*/*", "application/jsonx") },
    { weight: 1, arbitrary: hostileString },
  );
  return fc
    .tuple(
      optional("Content-Type", 80, mostlyJson),
      optional("Accept", 30, fc.constantFrom("application/json", "text/html", "application/json, text/event-stream", "text/event-stream", "*/*", "image/png", "")),
      optional("X-Request-Id", 25, fc.oneof(hostileString, fc.constantFrom("abc\r\nX-Injected: yes", "a\rb", "a\nb", "r".repeat(5000)))),
      optional("X-Api-Key", 40, key),
      optional("Authorization", 20, fc.oneof(key.map((k) => `Bearer ${k}`), fc.constantFrom("Bearer", "Basic dXNlcjpwYXNz", "bearer  x", ""), hostileString)),
      optional("Idempotency-Key", 15, hostileString),
      optional("Origin", 10, fc.constantFrom("http://evil.example", "null", "http://localhost:6274")),
      optional("X-Pad", 4, fc.integer({ min: 8_000, max: 70_000 }).map((n) => "p".repeat(n))),
      optional("X-Forwarded-For", 10, fc.constantFrom("203.0.113.9", "::1, 10.0.0.1", "garbage")),
      optional("Expect", 5, fc.constantFrom("100-continue", "999-foo")),
    )
    .map((hs) => hs.filter((h): h is [string, string] => h !== undefined))
    .chain((hs) => fc.boolean().map((dup) => (dup && hs.length ? [...hs, hs[0]] : hs)));
}

// Every method Node's parser accepts (QUERY and CONNECT among them), and two it refuses.
const METHODS = fc.constantFrom(...NODE_METHODS, "FOO", "get");

export function hostileRequest(endpoints: Endpoint[], keys: FuzzKeys): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(fc.constantFrom(...endpoints), fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: METHODS }), target(endpoints), headers(keys), fc.constantFrom("length", "length", "length", "chunked", "length+chunked"), fc.nat(19), fc.nat(9))
    .chain(([endpoint, otherMethod, tgt, hs, framing, hostDraw, pipelineDraw]) => {
      const method = otherMethod ?? endpoint.method;
      // Most requests aim at the endpoint drawn; the rest at the odd target generated for it.
      return fc.tuple(fc.constantFrom(endpoint.path.replace(/\{\w+\}/g, "CA"), tgt), bodyFor(endpoint.path)).map(([t, body]): FuzzRequest => ({
        method,
        target: t,
        headers: hs,
        body: method === "GET" || method === "HEAD" ? "" : body,
        framing: framing as FuzzRequest["framing"],
        ...(hostDraw === 0 ? { noHost: true } : {}),
        ...(pipelineDraw === 0 ? { pipelined: true } : {}),
      }));
    });
}
