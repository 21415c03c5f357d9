// Service-to-service authentication: bearer tokens with scopes, checked by a Connect interceptor
// on the service's chain (pipeline.ts), so it holds on every path a call can take. Tokens are
// held only as SHA-256 digests and compared in constant time; they are never logged.
//
// INTERNAL_TOKENS: comma-separated `name:scope1+scope2:token` entries (or INTERNAL_TOKENS_FILE,
// one entry a line; blank lines and lines starting with # are skipped).
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { type DescMethod, type DescService, getOption } from "@bufbuild/protobuf";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Caller, callers } from "@permits/proto/common/v1/callers";
import { ConfigError } from "@permits/runtime";

export const SCOPES = ["engine", "gateway", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

export interface InternalToken {
  name: string;
  scopes: ReadonlySet<Scope>;
  digest: Buffer;
}

/** Each scope as the protos name it (permits.common.v1.Caller). */
const SCOPE_OF: Record<Caller, Scope | undefined> = { [Caller.UNSPECIFIED]: undefined, [Caller.ENGINE]: "engine", [Caller.GATEWAY]: "gateway", [Caller.ADMIN]: "admin" };
/** gRPC server reflection: it shows the schema, never data, but like every RPC but the probe it needs a known caller. */
const REFLECTION_SERVICES = new Set(["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]);
/** Callable with no credential: probes must work before any secret is in place. */
const OPEN_SERVICES = new Set(["grpc.health.v1.Health"]);

/** The scopes an RPC admits, as its proto says: `option (permits.common.v1.callers) = ...`. None: no caller may call it. */
export function scopesOf(method: DescMethod): readonly Scope[] {
  return getOption(method, callers).flatMap((c) => SCOPE_OF[c] ?? []);
}

/**
 * Who may call each RPC of `services`, read from their protos once, not per call. A method
 * outside the table needs a scope no token has; reflection needs any known caller.
 */
function admissionTable(services: readonly DescService[]): (scopes: ReadonlySet<Scope>, method: DescMethod) => boolean {
  const table = new Map<DescMethod, readonly Scope[]>();
  for (const s of services) for (const m of s.methods) table.set(m, scopesOf(m));
  return (scopes, method) => {
    const admitted = table.get(method);
    if (admitted === undefined) return REFLECTION_SERVICES.has(method.parent.typeName) && scopes.size > 0;
    for (const scope of admitted) if (scopes.has(scope)) return true;
    return false;
  };
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** Shorter tokens are refused: a service credential should not be guessable. */
export const MIN_TOKEN_LENGTH = 24;

function digestOf(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/** Parses entries; `variable` names where they came from in any error (never the token itself). */
export function parseInternalTokens(entries: string[], variable: string): InternalToken[] {
  const tokens: InternalToken[] = [];
  const names = new Set<string>();
  entries.forEach((raw, i) => {
    const entry = raw.trim();
    const where = `${variable}: entry ${i + 1}`;
    const first = entry.indexOf(":");
    const second = first < 0 ? -1 : entry.indexOf(":", first + 1);
    if (first < 0 || second < 0) throw new ConfigError(`invalid configuration: ${where} must be name:scope1+scope2:token`);
    const name = entry.slice(0, first);
    const scopes = entry.slice(first + 1, second).split("+");
    const token = entry.slice(second + 1);
    if (!NAME.test(name)) throw new ConfigError(`invalid configuration: ${where}: the name must be 1 to 64 of A-Z a-z 0-9 _ . -`);
    if (names.has(name)) throw new ConfigError(`invalid configuration: ${where}: the name ${name} is used twice`);
    const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length > 0) throw new ConfigError(`invalid configuration: ${where} (${name}): unknown scope ${unknown.join(", ")}; scopes are ${SCOPES.join(", ")}`);
    if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token)) throw new ConfigError(`invalid configuration: ${where} (${name}): the token must be at least ${MIN_TOKEN_LENGTH} characters, without spaces`);
    names.add(name);
    tokens.push({ name, scopes: new Set(scopes as Scope[]), digest: digestOf(token) });
  });
  return tokens;
}

/**
 * A value given by a variable or by the file named in `<variable>_FILE` (Compose and Kubernetes
 * secrets), never both; undefined if neither. `from` names where it came from, for errors.
 */
function variableOrFile(env: NodeJS.ProcessEnv, variable: string): { text: string; from: string; inFile: boolean } | undefined {
  const inline = env[variable]?.trim() || undefined;
  const file = env[`${variable}_FILE`]?.trim() || undefined;
  if (inline && file) throw new ConfigError(`invalid configuration: ${variable} and ${variable}_FILE are both set; set one`);
  if (inline) return { text: inline, from: variable, inFile: false };
  if (!file) return undefined;
  try {
    return { text: readFileSync(file, "utf8"), from: `${variable}_FILE`, inFile: true };
  } catch {
    throw new ConfigError(`invalid configuration: ${variable}_FILE: cannot read ${file}`);
  }
}

/** INTERNAL_TOKENS (comma-separated) or INTERNAL_TOKENS_FILE (a line each); none configured gives an empty list. */
export function readInternalTokens(env: NodeJS.ProcessEnv): InternalToken[] {
  const given = variableOrFile(env, "INTERNAL_TOKENS");
  if (given === undefined) return [];
  const entries = given.inFile ? given.text.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.trim().startsWith("#")) : given.text.split(",");
  return parseInternalTokens(entries, given.from);
}

/** A token given by a variable or by a file named in `<variable>_FILE`; undefined if neither. */
export function readSecret(env: NodeJS.ProcessEnv, variable: string): string | undefined {
  return variableOrFile(env, variable)?.text.trim() || undefined;
}

/** Whether a listen address is reachable only from this machine. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The caller whose token is presented, comparing against every token in constant time. */
function callerOf(tokens: readonly InternalToken[], presented: string): InternalToken | undefined {
  const digest = digestOf(presented);
  let found: InternalToken | undefined;
  for (const t of tokens) if (timingSafeEqual(t.digest, digest) && found === undefined) found = t;
  return found;
}

const BEARER = /^Bearer ([^\s]+)$/;

/**
 * Marks a refusal of this check, so a caller can tell it from a refusal the service itself
 * decides (an Unauthenticated for a bad API key, say): the first is the caller's
 * misconfiguration, never the end user's fault.
 */
const REFUSED = "permits-caller-refused";

function refusal(message: string, code: Code): ConnectError {
  return new ConnectError(message, code, { [REFUSED]: "1" });
}

/**
 * The service side, guarding `services` (and reflection): every call needs a known token
 * (`authorization: Bearer <token>`) with a scope the method's proto admits; the health service is
 * open. Missing or unknown: Unauthenticated; known without the scope: PermissionDenied. With no
 * tokens configured, every call is refused.
 */
export function requireCaller(tokens: readonly InternalToken[], services: readonly DescService[]): Interceptor {
  const mayCall = admissionTable(services);
  return (next) => async (req) => {
    if (OPEN_SERVICES.has(req.service.typeName)) return next(req);
    const presented = BEARER.exec(req.header.get("authorization") ?? "")?.[1];
    const caller = presented === undefined ? undefined : callerOf(tokens, presented);
    if (caller === undefined) throw refusal("a valid caller credential is required (authorization: Bearer <token>)", Code.Unauthenticated);
    if (!mayCall(caller.scopes, req.method)) {
      throw refusal(`the credential ${caller.name} may not call ${req.service.typeName}/${req.method.name}`, Code.PermissionDenied);
    }
    return next(req);
  };
}

/**
 * The caller side: sends `token` on every call. A refusal of the token itself becomes Internal:
 * to whoever this caller serves, a service refusing its credential is a server fault.
 */
export function sendToken(token: string): Interceptor {
  const value = `Bearer ${token}`;
  return (next) => async (req) => {
    req.header.set("authorization", value);
    try {
      return await next(req);
    } catch (e) {
      if (e instanceof ConnectError && e.metadata.get(REFUSED) === "1") {
        throw new ConnectError(`${req.service.typeName}/${req.method.name} refused this caller's credential (${Code[e.code]}): check GATEWAY_TOKEN and the service's INTERNAL_TOKENS`, Code.Internal, undefined, undefined, e);
      }
      throw e;
    }
  };
}
