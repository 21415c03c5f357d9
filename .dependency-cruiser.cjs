// The boundaries between the workspace packages (npm run check:boundaries, part of npm test).
// A package is packages/<name>, services/<name> or gateway; its front door is src/index.ts, and
// src/testing.ts for test support (package.json "exports" lists only these); a service's manifest
// is src/manifest.ts, the gateway's list of them src/services.ts, @permits/state's SQL
// database src/sql.ts (apart, so that importing @permits/state loads no SQL driver), and
// @permits/swppp's ./deadlines (src/deadlines.ts: the schedule and deadline warnings without the
// plan document's libraries, which the sites service's sweep would otherwise load).
const PKG = "^(packages/[^/]+|services/[^/]+|gateway)/";
const FRONT_DOOR = "^((packages/[^/]+|services/[^/]+|gateway)/src/(index|testing)|services/[^/]+/src/manifest|packages/state/src/sql|packages/swppp/src/deadlines|gateway/src/services)\\.ts$";
const MANIFEST = "^services/[^/]+/src/manifest\\.ts$";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-deep-import",
      comment: "Another package is reached through its front door (src/index.ts, or ./testing from tests), never a file behind it.",
      severity: "error",
      from: { path: PKG },
      to: { path: PKG, pathNot: ["^$1/", FRONT_DOOR] },
    },
    {
      name: "no-deep-import-from-tools",
      comment: "Tests, scripts and the bench import a package by its name (@permits/<name>), through its front door.",
      severity: "error",
      from: { path: "^(test|scripts|bench|deploy)/" },
      to: { path: PKG, pathNot: FRONT_DOOR },
    },
    {
      name: "no-circular",
      comment: "No cycles: a module and what it imports can be read in one direction.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "engines-pure",
      comment: "An engine answers from what it is given: no files, sockets, HTTP, Redis or LMDB (services/*/src/engine/**).",
      severity: "error",
      from: { path: "^services/[^/]+/src/engine/" },
      to: { path: ["^(node:)?(fs|fs/promises|net|http|http2|https|dgram|child_process)$", "(^|/)node_modules/(redis|ioredis|@redis/[^/]+|lmdb)/"] },
    },
    {
      name: "engines-stay-in-their-room",
      comment: "An engine imports only its own files and the shared packages: what the service around it holds (its changelog, dataset loading, handlers) imports the engine, never the reverse.",
      severity: "error",
      from: { path: "^services/([^/]+)/src/engine/", pathNot: "\\.test\\.ts$" },
      to: { path: "^services/$1/src/", pathNot: "^services/$1/src/engine/" },
    },
    {
      name: "swppp-pure",
      comment: "The plan document and the inspection schedule are pure: no files, sockets, HTTP, processes or stores; dates are inputs, never the clock (tests may read the dataset).",
      severity: "error",
      from: { path: "^packages/swppp/src/", pathNot: "\\.test\\.ts$" },
      to: { path: ["^(node:)?(fs|fs/promises|net|http|http2|https|dgram|child_process|worker_threads|os|sqlite)$", "(^|/)node_modules/(redis|ioredis|@redis/[^/]+|lmdb|pg|undici)/"] },
    },
    {
      name: "swppp-below-services",
      comment: "The pure package is used by the app; it reaches no service (its tests take real answers from the stormwater engine through its front door).",
      severity: "error",
      from: { path: "^packages/swppp/src/", pathNot: "(\\.test|/testing)\\.ts$" },
      to: { path: "^(services|gateway|packages/(runtime|rpc))/" },
    },
    {
      name: "gateway-reaches-services-through-front-door",
      comment: "The gateway reaches a service through its public entry (the key scheme), its manifest (the list of services) or a Connect transport.",
      severity: "error",
      from: { path: "^gateway/" },
      to: { path: "^services/", pathNot: ["^services/[^/]+/src/index\\.ts$", MANIFEST] },
    },
    {
      name: "one-list-of-services",
      comment: "Services are listed once: only gateway/src/services.ts imports their manifests (tests, scripts, the bench and deploy iterate that list too, or a service's own main.ts uses its own).",
      severity: "error",
      from: { path: "^(gateway|packages|test|scripts|bench|deploy)/", pathNot: "^gateway/src/services\\.ts$" },
      to: { path: MANIFEST },
    },
    {
      name: "one-list-of-services-among-services",
      comment: "A service uses its own manifest (its main.ts), never another's: they meet in the gateway's list.",
      severity: "error",
      from: { path: "^services/([^/]+)/" },
      to: { path: MANIFEST, pathNot: "^services/$1/" },
    },
    {
      name: "no-service-in-the-plumbing",
      comment: "The token check, the metrics listener and the standalone host import no service nor its protobuf code: they read the descriptors and manifests they are given (test/services.test.ts checks they name none either).",
      severity: "error",
      from: { path: "^packages/rpc/src/(interceptors/internal-auth|server/metrics-listener|server/standalone)\\.ts$" },
      to: { path: ["^services/", "^gateway/", "^proto/gen/permits/(?!common/)[^/]+/"] },
    },
    {
      name: "layers",
      comment: "rules <- runtime <- rpc: domain rules load no process runtime or transport, and the runtime no transport.",
      severity: "error",
      from: { path: "^packages/(rules|runtime)/" },
      to: { path: "^packages/rpc/" },
    },
    {
      name: "rules-below-runtime",
      severity: "error",
      from: { path: "^packages/rules/" },
      to: { path: "^packages/runtime/" },
    },
    {
      name: "http-is-plumbing",
      comment: "gateway/src/http holds the HTTP plumbing every route shares: it knows no service (their clients, deps or protobuf messages) and no feature (access, surfaces); features sit above it.",
      severity: "error",
      from: { path: "^gateway/src/http/", pathNot: "\\.test\\.ts$" },
      to: {
        path: [
          "^gateway/src/(access|surfaces|mcp|rpc)/",
          "^gateway/src/(app|services|deps|wiring|main|config|index)\\.ts$",
          "^services/",
          "^proto/gen/permits/(?!common/)[^/]+/",
        ],
      },
    },
    {
      name: "state-sits-on-runtime",
      comment: "@permits/state opens state with what the runtime gives (configuration, breaker, timeouts): no transport, service or gateway.",
      severity: "error",
      from: { path: "^packages/state/" },
      to: { path: "^(packages/rpc|services|gateway)/" },
    },
    {
      name: "state-above-the-shared-layers",
      comment: "rules, runtime and rpc load no state: services and the gateway reach it through @permits/state.",
      severity: "error",
      from: { path: "^packages/(rules|runtime|rpc)/" },
      to: { path: "^packages/state/" },
    },
    {
      name: "state-opens-in-one-place",
      comment: "Redis clients, LMDB files and SQL databases (pg, node:sqlite) are opened by @permits/state only (one recipe, one STATE_DIR); tests and test support may poke at Redis or set a database up directly.",
      severity: "error",
      from: { path: "^(packages|services|gateway)/", pathNot: ["^packages/state/", "(\\.test|/testing)\\.ts$"] },
      to: { path: ["(^|/)node_modules/(redis|@redis/[^/]+|lmdb|pg)/", "^(node:)?sqlite$"] },
    },
    {
      name: "sql-drivers-load-on-first-open",
      comment: "@permits/state/sql loads Kysely, pg, node:sqlite and its SQLite dialect by dynamic import only (types aside): a host that imports it loads no SQL driver before a service's first call.",
      severity: "error",
      from: { path: "^packages/state/src/sql\\.ts$" },
      to: { path: ["(^|/)node_modules/(kysely|pg)/", "^(node:)?sqlite$", "^packages/state/src/sqlite-dialect\\.ts$"], dynamic: false, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "no-sql-driver-from-the-state-index",
      comment: "@permits/state's index (Redis, LMDB) loads no SQL driver: Kysely, pg and node:sqlite load through @permits/state/sql alone, on a SQL service's first call.",
      severity: "error",
      from: { path: "^packages/state/src/(index|backend|lmdb|redis)\\.ts$" },
      to: { path: ["(^|/)node_modules/(kysely|pg)/", "^(node:)?sqlite$", "^packages/state/src/(sql|sqlite-dialect)\\.ts$"] },
    },
    {
      name: "resolvable",
      comment: "Every import resolves (so no rule above is dodged by a path the checker cannot follow).",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // Third-party modules and the generated protobuf code are in the graph (so rules can name
    // them) but not followed; build output is left out.
    doNotFollow: { path: ["node_modules", "^proto/gen/"] },
    exclude: { path: "^(packages/[^/]+|services/[^/]+|gateway|proto|clients/[^/]+)/dist/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.depcruise.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@permits/source", "import", "require", "node", "default"],
      extensions: [".ts", ".mjs", ".js", ".d.ts"],
    },
    reporterOptions: {
      dot: { collapsePattern: "^(packages/[^/]+|services/[^/]+|gateway|proto|test|scripts|bench)/" },
    },
  },
};
