// Small readers for the strict manifest parser: each checks one JSON value against one rule and throws a
// ManifestProblem naming the value's path. Throwing keeps the parser a straight list of fields; the
// parser catches the first problem and turns it into the refusal.
//
// Paths are dotted from the manifest's root, array items by index: `secrets.0.name`, `hosts.3`. Actions
// are the exception: an action whose name is valid is named by it (`actions.screen.retry.jitter`, as in
// the refusals of docs/module-contract.md), since action names start with a letter and cannot be an index.

export class ManifestProblem extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path}: ${problem}`);
  }
}

export type Fields = Record<string, unknown>;

export const UNKNOWN_FIELD =
  'unknown field (the app may be built with a newer toolkit than this platform supports; ' +
  'rebuild it with a toolkit for this platform)';

export const at = (path: string, key: string | number): string => (path === '' ? `${key}` : `${path}.${key}`);

export function fail(path: string, problem: string): never {
  throw new ManifestProblem(path, problem);
}

/** Characters as people count them: code points, not UTF-16 units. */
const length = (text: string) => [...text].length;

export function object(value: unknown, path: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'expected an object');
  return value as Fields;
}

/** Refuses any field the platform does not know, in the order the object holds them. */
export function knownFieldsOnly(fields: Fields, path: string, known: readonly string[]): void {
  for (const key of Object.keys(fields)) if (!known.includes(key)) fail(at(path, key), UNKNOWN_FIELD);
}

/** An object with only the given fields. */
export function record(value: unknown, path: string, known: readonly string[]): Fields {
  const fields = object(value, path);
  knownFieldsOnly(fields, path, known);
  return fields;
}

export function required(fields: Fields, key: string, path: string): unknown {
  const value = fields[key];
  if (value === undefined) fail(at(path, key), 'is required');
  return value;
}

/** Reads fields[key], which must be present. */
export function field<T>(
  fields: Fields,
  key: string,
  path: string,
  read: (value: unknown, path: string) => T,
): T {
  return read(required(fields, key, path), at(path, key));
}

/** Reads fields[key] when present; undefined when absent. */
export function optional<T>(
  fields: Fields,
  key: string,
  path: string,
  read: (value: unknown, path: string) => T,
): T | undefined {
  const value = fields[key];
  return value === undefined ? undefined : read(value, at(path, key));
}

export interface TextRule {
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** What the pattern asks for, said to the author. */
  expected?: string;
}

export function text(value: unknown, path: string, rule: TextRule = {}): string {
  if (typeof value !== 'string') fail(path, 'expected a string');
  const { min = 0, max } = rule;
  const count = length(value);
  if (count < min) fail(path, min === 1 ? 'must not be empty' : `expected at least ${min} characters`);
  if (max !== undefined && count > max) fail(path, `expected at most ${max} characters, got ${count}`);
  if (rule.pattern && !rule.pattern.test(value)) fail(path, rule.expected ?? `must match ${rule.pattern}`);
  return value;
}

/** A string checked by a function answering its problem or null. */
export function checked(value: unknown, path: string, problem: (text: string) => string | null): string {
  if (typeof value !== 'string') fail(path, 'expected a string');
  const found = problem(value);
  if (found !== null) fail(path, found);
  return value;
}

export interface Range {
  min: number;
  max: number;
}

export function integer(value: unknown, path: string, { min, max }: Range): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) fail(path, 'expected an integer');
  if (value < min || value > max) fail(path, `expected an integer from ${min} to ${max}, got ${value}`);
  return value;
}

/** A reader of integers in the range, for field and optional. */
export const integerIn =
  (range: Range) =>
  (value: unknown, path: string): number =>
    integer(value, path, range);

export function boolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') fail(path, 'expected true or false');
  return value;
}

/** An array of min to max items, each read by `item` at path.index. */
export function list<T>(
  value: unknown,
  path: string,
  bounds: { min?: number; max: number },
  item: (value: unknown, path: string, index: number) => T,
): T[] {
  if (!Array.isArray(value)) fail(path, 'expected an array');
  const { min = 0, max } = bounds;
  if (value.length < min || value.length > max) {
    fail(
      path,
      min === max ? `expected ${min} items` : `expected ${min} to ${max} items, got ${value.length}`,
    );
  }
  return value.map((entry, index) => item(entry, at(path, index), index));
}

/** Refuses the second occurrence of a value, at its own path. */
export function once(values: readonly string[], path: string, what: string): void {
  const seen = new Set<string>();
  for (const [index, value] of values.entries()) {
    if (seen.has(value)) fail(at(path, index), `${what} ${JSON.stringify(value)} appears more than once`);
    seen.add(value);
  }
}
