// A config schema's errors as issues a person reads (config saves answer them): Ajv's own words
// for `not` and `if` rules ("must NOT be valid", "must match "then" schema") say neither what is wrong nor
// where. Pure: Ajv's errors (compiled with verbose, so each carries its rule and data) in, issues out.
import type { ErrorObject } from 'ajv';
import { issuesFromAjv } from '../http/errors.ts';
import { type ConfigIssue, childPointer } from './config-pointers.ts';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A `not` rule's issues: a rule refusing properties (`not: { required: [...] }`) points at each refused
 * property the data holds; any other says the value is not allowed, where it is.
 */
function notIssues(error: ErrorObject): ConfigIssue[] {
  const at = error.instancePath;
  const refused: unknown = error.schema;
  const data: unknown = error.data;
  if (isRecord(refused) && Array.isArray(refused.required) && isRecord(data)) {
    const present = refused.required.filter(
      (name): name is string => typeof name === 'string' && Object.hasOwn(data, name),
    );
    if (present.length > 0) {
      return present.map((name) => ({
        path: childPointer(at, name),
        message: `${name} is not allowed here`,
      }));
    }
  }
  return [{ path: at || '/', message: 'this value is not allowed here' }];
}

/** The schema's issues at the deepest pointer Ajv knows, each once. */
export function schemaIssues(errors: readonly ErrorObject[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const error of errors) {
    // An `if` rule's failing branch reports its own errors; the rule's "must match" adds nothing.
    if (error.keyword === 'if') continue;
    if (error.keyword === 'not') issues.push(...notIssues(error));
    else issues.push(...(issuesFromAjv([error], 'body') as ConfigIssue[]));
  }
  return uniqueIssues(issues);
}

/** Issues without repeats (same path, same message), first ones first. */
export function uniqueIssues(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The issues of a config its schema refused, with the platform's own rules' issues (secret variables),
 * which say the same thing better: a schema issue at a pointer a rule speaks to gives way.
 */
export function withRuleIssues(schema: readonly ConfigIssue[], rules: readonly ConfigIssue[]): ConfigIssue[] {
  const spoken = new Set(rules.map((issue) => issue.path));
  return [...schema.filter((issue) => !spoken.has(issue.path)), ...rules];
}
