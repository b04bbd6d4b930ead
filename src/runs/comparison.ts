// STAND-IN (runs-r worktree): the real comparisons land from another worktree; the lead keeps that one at
// merge. Only the signatures are relied on here.
import { isDeepStrictEqual } from 'node:util';
import { readPath } from './input-mapping.ts';
import type { Comparison, Condition } from './model.ts';

export function matches(value: unknown, comparison: Comparison): boolean {
  const c = comparison as Record<string, unknown>;
  if ('equals' in c) return isDeepStrictEqual(value, c.equals);
  if ('notEquals' in c) return !isDeepStrictEqual(value, c.notEquals);
  if ('in' in c) return (c.in as unknown[]).some((v) => isDeepStrictEqual(v, value));
  if ('notIn' in c) return !(c.notIn as unknown[]).some((v) => isDeepStrictEqual(v, value));
  if ('exists' in c) return (value !== undefined) === c.exists;
  if (typeof value !== 'number') return false;
  if ('lt' in c) return value < (c.lt as number);
  if ('lte' in c) return value <= (c.lte as number);
  if ('gt' in c) return value > (c.gt as number);
  if ('gte' in c) return value >= (c.gte as number);
  return false;
}

export function conditionHolds(data: unknown, condition: Condition): boolean {
  const { path, ...comparison } = condition;
  const read = readPath(data, path);
  return matches(read.found ? read.value : undefined, comparison as Comparison);
}
