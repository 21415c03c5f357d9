// Operator CLI (`npm run keys -- <command>`). It works directly on the configured store (LMDB or
// Redis, same environment as the service) through the service implementation itself, over an
// in-process transport, so the CLI and the RPCs share one set of rules.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Code, ConnectError, createClient, createRouterTransport, type Client } from "@connectrpc/connect";
import { badRequestOf } from "@permits/rules";
import { EntitlementService, KeyKind, Plan, SubscriptionStatus, type ApiKey } from "@permits/proto/entitlement/v1/entitlement";
import { createEntitlementDeps, loadEntitlementConfig } from "./config.js";
import { deriveLegacyKey, SUBSCRIPTION_ID_RE } from "./keys.js";
import { createEntitlementService } from "./service.js";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env?: Record<string, string | undefined>;
}

export const USAGE = `Usage: npm run keys -- <command> [options]

Commands:
  create --kind live|test [--plan pro|scale] [--label TEXT] [--json]
                                   issue a key; prints it once, with its id
  list [--json]                    list keys (ids and metadata, never secrets)
  revoke <id> [--json]             revoke a key; takes effect on the next call
  legacy <subscriptionId>          print the document 2 live key derived from a subscription
  subscription set <id> active|trialing|canceled
                                   set a subscription of the local payment provider

The store is the service's: REDIS_URL if set, else the LMDB store in STATE_DIR (default ./.state).`;

class UsageError extends Error {}

const EXIT_OK = 0;
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

function parse(args: string[], options: Record<string, { type: "string" | "boolean" }>, positionals: number) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (parsed.positionals.length !== positionals) {
    throw new UsageError(`expected ${positionals} argument${positionals === 1 ? "" : "s"}, got ${parsed.positionals.length}`);
  }
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
}

function kindName(k: KeyKind): string {
  return k === KeyKind.LIVE ? "live" : k === KeyKind.TEST ? "test" : "unknown";
}

function planName(p: Plan): string {
  return p === Plan.PRO ? "pro" : p === Plan.SCALE ? "scale" : "-";
}

function keyJson(k: ApiKey) {
  return { id: k.id, kind: kindName(k.kind), plan: k.plan === Plan.UNSPECIFIED ? null : planName(k.plan), label: k.label, createdAt: k.createdAt, revokedAt: k.revokedAt ?? null };
}

function keyLine(k: ApiKey): string {
  return [k.id, kindName(k.kind), planName(k.plan), k.createdAt, k.revokedAt ? `revoked ${k.revokedAt}` : "active", k.label || "-"].join("\t");
}

function describeError(err: unknown): string {
  if (err instanceof ConnectError) {
    const fields = badRequestOf(err)?.violations.map((v) => `${v.field}: ${v.description}`) ?? [];
    return [err.rawMessage, ...fields].join("\n  ");
  }
  return err instanceof Error ? err.message : String(err);
}

type EntitlementClient = Client<typeof EntitlementService>;

async function withClient(io: CliIo, run: (client: EntitlementClient) => Promise<void>): Promise<void> {
  const deps = await createEntitlementDeps(io.env ?? process.env);
  for (const w of deps.config.warnings) io.err(`warning: ${w}`);
  try {
    const impl = createEntitlementService(deps);
    const transport = createRouterTransport(({ service }) => service(EntitlementService, impl));
    await run(createClient(EntitlementService, transport));
  } finally {
    await deps.close();
  }
}

async function dispatch(argv: string[], io: CliIo): Promise<void> {
  const [command, ...rest] = argv;
  const print = (json: boolean | string | undefined, value: unknown, text: string) => io.out(json ? JSON.stringify(value, null, 2) : text);
  switch (command) {
    case "create": {
      const { values } = parse(rest, { kind: { type: "string" }, plan: { type: "string" }, label: { type: "string" }, json: { type: "boolean" } }, 0);
      const kind = values.kind === "live" ? KeyKind.LIVE : values.kind === "test" ? KeyKind.TEST : undefined;
      if (kind === undefined) throw new UsageError("--kind must be live or test");
      if (values.plan !== undefined && values.plan !== "pro" && values.plan !== "scale") throw new UsageError("--plan must be pro or scale");
      if (kind === KeyKind.LIVE && values.plan === undefined) throw new UsageError("a live key needs --plan pro|scale");
      if (kind === KeyKind.TEST && values.plan !== undefined) throw new UsageError("--plan applies to live keys only");
      const plan = values.plan === "pro" ? Plan.PRO : values.plan === "scale" ? Plan.SCALE : Plan.UNSPECIFIED;
      const label = typeof values.label === "string" ? values.label : "";
      await withClient(io, async (client) => {
        const res = await client.issueKey({ kind, plan, label });
        const k = res.key!;
        print(values.json, { key: res.secret, ...keyJson(k) }, [`key: ${res.secret}`, `id: ${k.id}`, `kind: ${kindName(k.kind)}`, `plan: ${planName(k.plan)}`, `label: ${k.label}`].join("\n"));
        io.err("The key is shown only once; only its hash is stored.");
      });
      return;
    }
    case "list": {
      const { values } = parse(rest, { json: { type: "boolean" } }, 0);
      await withClient(io, async (client) => {
        const { keys } = await client.listKeys({});
        const text = keys.length ? ["id\tkind\tplan\tcreated\tstatus\tlabel", ...keys.map(keyLine)].join("\n") : "no keys";
        print(values.json, keys.map(keyJson), text);
      });
      return;
    }
    case "revoke": {
      const { values, positionals } = parse(rest, { json: { type: "boolean" } }, 1);
      await withClient(io, async (client) => {
        const { key } = await client.revokeKey({ id: positionals[0] });
        print(values.json, keyJson(key!), `revoked ${key!.id} at ${key!.revokedAt}`);
      });
      return;
    }
    case "legacy": {
      const { positionals } = parse(rest, {}, 1);
      const id = positionals[0];
      if (!SUBSCRIPTION_ID_RE.test(id)) throw new UsageError("subscriptionId must be letters, digits, '_' or '-' (e.g. sub_1Abc)");
      const config = loadEntitlementConfig(io.env ?? process.env);
      for (const w of config.warnings) io.err(`warning: ${w}`);
      io.out(deriveLegacyKey(config.legacySecret, id));
      return;
    }
    case "subscription": {
      const { positionals } = parse(rest, {}, 3);
      const [action, id, statusWord] = positionals;
      if (action !== "set") throw new UsageError(`unknown subscription action "${action}" (expected set)`);
      if (!SUBSCRIPTION_ID_RE.test(id)) throw new UsageError("subscription id must be letters, digits, '_' or '-' (e.g. sub_1Abc)");
      const status = ({ active: SubscriptionStatus.ACTIVE, trialing: SubscriptionStatus.TRIALING, canceled: SubscriptionStatus.CANCELED } as Record<string, SubscriptionStatus>)[statusWord];
      if (status === undefined) throw new UsageError("status must be active, trialing or canceled");
      await withClient(io, async (client) => {
        await client.setLocalSubscription({ subscriptionId: id, status });
        io.out(`subscription ${id} is now ${statusWord}`);
      });
      return;
    }
    case undefined:
      throw new UsageError("missing command");
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

/** Runs one CLI invocation; resolves to the exit code (0 ok, 1 failed, 2 usage). */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 1 && (argv[0] === "help" || argv[0] === "--help" || argv[0] === "-h")) {
    io.out(USAGE);
    return EXIT_OK;
  }
  try {
    await dispatch(argv, io);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`error: ${err.message}\n\n${USAGE}`);
      return EXIT_USAGE;
    }
    io.err(`error: ${describeError(err)}`);
    return err instanceof ConnectError && err.code === Code.InvalidArgument ? EXIT_USAGE : EXIT_FAILED;
  }
}

function isMain(): boolean {
  try {
    return !!process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMain()) {
  const code = await runCli(process.argv.slice(2), {
    out: (t) => process.stdout.write(t + "\n"),
    err: (t) => process.stderr.write(t + "\n"),
  });
  process.exitCode = code;
}
