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
