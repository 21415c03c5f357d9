// The front door of @permits/gateway, for what runs a gateway in-process (the tests, the embedded
// examples in scripts/) and the tools that check its contract: the app, its configuration and its
// wiring, and the surface tables the OpenAPI, MCP and bench checks compare against.
export { buildApp } from "./app.js";
export { GATEWAY, SERVICES, urlVariable, type ServiceClients, type ServiceName } from "./services.js";
export { readGatewayConfig, type GatewayConfig } from "./config.js";
export { parseTrustProxy } from "./http/client-address.js";
export { serializeBody } from "./http/public-json.js";
export { TOOLS } from "./mcp/tools.js";
export { unknownPathSurface, type RouteSpec } from "./http/route-table.js";
export { determinationsOf } from "./surfaces/nwp/batch-lists.js";
export { PROJECT_FIELDS, PROJECT_REQUIRED } from "./surfaces/nwp/project-input.js";
export { decidedItem, parseProject } from "./surfaces/nwp/routes.js";
export { SITE_FIELDS } from "./surfaces/stormwater/site-input.js";
export { wireServices, type Wiring, type WiringInterceptors } from "./wiring.js";
export { checkRulesChanged } from "./rules-check.js";
