// Comparisons on one value (src/runs/model.ts Comparison): an app rule's failWhen on the output at its
// resultPath (a synchronous action's output; docs/runs.md "Rule evaluation") and a decide branch's
// condition on the run context. Pure. A missing value is undefined, which JSON cannot hold: it equals
// nothing, is in no list and is no number, so only exists:false and the negations (notEquals, notIn) match it.
import { readPath } from './input-mapping.ts';
import type { AppRule, Comparison, Condition } from './model.ts';

type JsonObject = Record<string, unknown>;

const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys whose value is not undefined: JSON writes no member for undefined. */
const definedKeys = (object: JsonObject): string[] =>
  Object.keys(object).filter((key) => object[key] !== undefined);

function arraysEqual(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
}

/** Same members with equal values, in any order. */
function objectsEqual(a: JsonObject, b: JsonObject): boolean {
  const keys = definedKeys(a);
  return (
    keys.length === definedKeys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
  );
}

/**
 * Strict JSON equality: same type and value, no coercion (1 is not "1", null is not false), arrays item by
 * item, objects member by member whatever their order. undefined (a missing value) equals nothing, itself
 * included; 0 and -0 are one JSON number.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && arraysEqual(a, b);
  return isJsonObject(a) && isJsonObject(b) && objectsEqual(a, b);
}

const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

/** An order comparison holds only between finite numbers: a string, null or a missing value never matches. */
const ordered =
  (holds: (value: number, bound: number) => boolean) =>
  (value: unknown, bound: unknown): boolean =>
    isFiniteNumber(value) && isFiniteNumber(bound) && holds(value, bound);

const isIn = (value: unknown, list: unknown): boolean =>
  Array.isArray(list) && list.some((item) => jsonEqual(value, item));

/** equals, notEquals, in, …: each member of the Comparison union has one key. */
type Operator = Comparison extends infer C ? (C extends unknown ? keyof C : never) : never;

/** Each operator's test on the value and its operand, in the order `matches` looks for them. */
const OPERATORS: Record<Operator, (value: unknown, operand: unknown) => boolean> = {
  equals: (value, operand) => jsonEqual(value, operand),
  notEquals: (value, operand) => !jsonEqual(value, operand),
  in: (value, list) => isIn(value, list),
  // A list that is not one is malformed: it matches nothing rather than everything.
  notIn: (value, list) => Array.isArray(list) && !isIn(value, list),
  lt: ordered((value, bound) => value < bound),
  lte: ordered((value, bound) => value <= bound),
  gt: ordered((value, bound) => value > bound),
  gte: ordered((value, bound) => value >= bound),
  exists: (value, wanted) =>
    typeof wanted === 'boolean' && (value !== undefined && value !== null) === wanted,
};

const OPERATOR_NAMES = Object.keys(OPERATORS) as Operator[];

/**
 * Whether the value matches the comparison. Definition validation lets exactly one operator through; were
 * there several, the first in OPERATORS' order decides, and one with none or an undefined operand matches
 * nothing. Other members (a condition's path) are ignored.
 */
export function matches(value: unknown, comparison: Comparison): boolean {
  const operator = OPERATOR_NAMES.find((name) => Object.hasOwn(comparison, name));
  if (operator === undefined) return false;
  const operand = (comparison as Record<string, unknown>)[operator];
  return operand !== undefined && OPERATORS[operator](value, operand);
}

/** The value at a dot path, undefined when the path does not resolve. */
function valueAt(data: unknown, dotPath: string): unknown {
  const read = readPath(data, dotPath);
  return read.found ? read.value : undefined;
}

/** Whether a decide branch's condition holds on the data (the run context). */
export const conditionHolds = (data: unknown, condition: Condition): boolean =>
  matches(valueAt(data, condition.path), condition);

/** Whether an app rule fails: its failWhen matches the action's output at its resultPath. */
export const appRuleFails = (output: unknown, rule: Pick<AppRule, 'resultPath' | 'failWhen'>): boolean =>
  matches(valueAt(output, rule.resultPath), rule.failWhen);
