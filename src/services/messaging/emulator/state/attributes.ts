/**
 * The upstream's attribute rules, shared by people, devices, objects and relationships: an empty string (or
 * null, in v2) removes an attribute, and JSON dot notation changes one nested field.
 */
import type { JsonObject } from '../records.js';

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Applies attribute changes the upstream way: an empty string (or null, in v2) removes the attribute. */
export function mergeAttributes(current: JsonObject, changes: JsonObject): JsonObject {
  const out: JsonObject = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === '' || value === null || value === undefined) Reflect.deleteProperty(out, key);
    else out[key] = value;
  }
  return out;
}

/**
 * A copy of `target` with the value at `path` set, or removed when the value is empty (or null, in v2): the
 * upstream's JSON dot notation, e.g. `cio_subscription_preferences.topics.topic_2`, for one nested field.
 */
export function withPath(target: JsonObject, path: readonly string[], value: unknown): JsonObject {
  const [head, ...rest] = path;
  if (head === undefined) return target;
  const out: JsonObject = { ...target };
  if (rest.length > 0) {
    out[head] = withPath(isObject(out[head]) ? out[head] : {}, rest, value);
  } else if (value === '' || value === null || value === undefined) {
    Reflect.deleteProperty(out, head);
  } else {
    out[head] = value;
  }
  return out;
}
