// The front door of @permits/rules: everything other packages may import (README.md says what is here and why).
export * from "./basis.js";
export * from "./caution.js";
export * from "./changelog.js";
export * from "./data-dir.js";
export * from "./dates.js";
export * from "./errors.js";
export * from "./fact-index.js";
export * from "./freeze.js";
export * from "./grounded.js";
export * from "./words.js";
