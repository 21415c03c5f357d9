// The front door of @permits/rpc: everything other packages may import (README.md says what is here and why).
export * from "./chain/pipeline.js";
export * from "./client/coalesce.js";
export * from "./client/direct-transport.js";
export * from "./client/h2-transport.js";
export * from "./interceptors/internal-auth.js";
export * from "./interceptors/metrics.js";
export * from "./interceptors/tracing.js";
export * from "./server/lean-unary.js";
export * from "./server/reflection.js";
export * from "./server/serve.js";
export * from "./server/standalone.js";
export * from "./wire/envelope.js";
export * from "./wire/h2-headers.js";
export * from "./wire/limits.js";
export * from "./wire/shared-decode.js";
