// How a call_app step and an app rule build an action's input, one rule for both (docs/rules.md, runs):
// the literal input first, then inputMapping (input field → dot path into the run
// context or the rule data) on top. Also the dot-path reader runs use everywhere; the check of mapping
// keys against an action's mappable pointers is src/module/mappable.ts (admission uses it too). Pure:
// arguments are never changed, nothing else is read.
export { unmappableKeys } from '../module/index.ts';

export type PathRead = { found: true; value: unknown } | { found: false };

type JsonObject = Record<string, unknown>;

/** Array positions as JSON writes them: "0", "12", never "01", "-1" or "+1". */
const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

/** Every dot separates, so no segment of a dot path or a dotted field name holds a dot. */
const segmentsOf = (dotPath: string): string[] => dotPath.split('.');

/** A JSON object: arrays are not, so a path never writes into one. */
const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** One step down: an object's own member (never an inherited one), an array's item by its index only. */
function memberOf(container: unknown, segment: string): PathRead {
  if (Array.isArray(container)) {
    // An array's own `length` is not data.
    if (!ARRAY_INDEX.test(segment)) return { found: false };
    const index = Number(segment);
    return Object.hasOwn(container, index) ? { found: true, value: container[index] } : { found: false };
  }
  if (isJsonObject(container) && Object.hasOwn(container, segment)) {
    return { found: true, value: container[segment] };
  }
  return { found: false };
}

/**
 * The value at a dot path ("applicant.address.city", "items.0.id") of the run context or rule data.
 * An empty segment names the member "" (definition validation refuses such paths). A member holding
 * undefined is not found, as JSON has no undefined.
 */
export function readPath(data: unknown, dotPath: string): PathRead {
  let value = data;
  for (const segment of segmentsOf(dotPath)) {
    const member = memberOf(value, segment);
    if (!member.found) return member;
    value = member.value;
  }
  return value === undefined ? { found: false } : { found: true, value };
}

/** Sets an own data property: assigning `__proto__` would change the object's prototype instead. */
function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * The object at `segment` of `level` to write into: a new one where none is, the one there when this build
 * made it, else a copy (a literal's or the data's object is never written into). null when a non-object
 * (an array included) holds the place.
 */
function writableChild(level: JsonObject, segment: string, owned: WeakSet<object>): JsonObject | null {
  const current = Object.hasOwn(level, segment) ? level[segment] : undefined;
  if (current !== undefined && !isJsonObject(current)) return null;
  if (current !== undefined && owned.has(current)) return current;
  const child: JsonObject = current === undefined ? {} : { ...current };
  owned.add(child);
  setOwn(level, segment, child);
  return child;
}

/**
 * Writes `value` at the dotted field under `input`. Where a non-object holds an intermediate place it is
 * left alone and the value lands under the rest of the dotted field, as one key, at that level.
 */
function setField(input: JsonObject, field: string, value: unknown, owned: WeakSet<object>): void {
  const segments = segmentsOf(field);
  let level = input;
  for (let i = 0; i < segments.length - 1; i++) {
    const child = writableChild(level, segments[i] as string, owned);
    if (child === null) {
      setOwn(level, segments.slice(i).join('.'), value);
      return;
    }
    level = child;
  }
  setOwn(level, segments[segments.length - 1] as string, value);
}

/**
 * An action's input: a copy of the literal, then each mapping entry in order whose path resolves in `data`
 * sets its field (overriding the literal's or an earlier entry's value there). An unresolved path leaves
 * whatever the literal has. Values are placed as read: strings that look like placeholders stay text.
 */
export function buildInput(
  literal: Record<string, unknown> | undefined,
  mapping: Record<string, string> | undefined,
  data: unknown,
): Record<string, unknown> {
  const input: JsonObject = { ...literal };
  const owned = new WeakSet<object>([input]);
  for (const [field, dotPath] of Object.entries(mapping ?? {})) {
    const read = readPath(data, dotPath);
    if (read.found) setField(input, field, read.value, owned);
  }
  return input;
}
