/**
 * Freezes a prepared dataset and everything it reaches (objects, arrays, Map and Set entries).
 * Two reasons: nothing at request time can alter shared data by accident (it would throw), and
 * a frozen message is known to be immutable, so its serialised form can be cached by identity
 * (see the gateway's public-json.ts).
 */
export function deepFreeze<T>(value: T, seen = new WeakSet<object>()): T {
  if (value === null || typeof value !== "object" || seen.has(value as object)) return value;
  seen.add(value as object);
  if (ArrayBuffer.isView(value)) return value; // typed arrays cannot be frozen; bytes are not shared state here
  if (value instanceof Map) {
    for (const [k, v] of value) {
      deepFreeze(k, seen);
      deepFreeze(v, seen);
    }
  } else if (value instanceof Set) {
    for (const v of value) deepFreeze(v, seen);
  }
  for (const key of Reflect.ownKeys(value as object)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  return Object.freeze(value);
}

const derived = new WeakMap<object, Map<string | number, unknown>>();

/**
 * A part derived from frozen dataset objects alone (a notice for an agency, a requirement for a
 * receiving-water case), built on first use, frozen, and kept beside its owner. The engines'
 * answers then share these parts by identity, so the gateway serialises each one once per
 * process (public-json.ts) instead of once per request. The key must be drawn from the dataset
 * or from a small fixed set of cases, never from a caller's free input (acres, dates), so the
 * cache stays bounded by the dataset.
 */
export function derivedOnce<T>(owner: object, key: string | number, build: () => T): T {
  let parts = derived.get(owner);
  if (parts === undefined) {
    parts = new Map();
    derived.set(owner, parts);
  }
  let part = parts.get(key) as T | undefined;
  if (part === undefined) {
    part = deepFreeze(build());
    parts.set(key, part);
  }
  return part;
}
