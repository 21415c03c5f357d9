// The front door of @permits/runtime: everything other packages may import (README.md says what is here and why).
export * from "./clock.js";
export * from "./config.js";
export * from "./heap.js";
export * from "./hosted.js";
export * from "./logger.js";
export * from "./timeout.js";
