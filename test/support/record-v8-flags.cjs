// Preloaded (node --require) by test/startup.test.ts: reports every V8 flag a process sets at run
// time on stderr, so a test can see what heap.ts applied.
const v8 = require("node:v8");
const set = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => {
  process.stderr.write(`v8 flags set: ${flags}\n`);
  return set(flags);
};
