// STAND-IN (runs-r worktree): the real input mapping (spec part 1 §4.8) lands from another worktree; the
// lead keeps that one at merge. Only the signatures are relied on here.

/** The value at a dot path of data, when there is one. */
export function readPath(data: unknown, dotPath: string): { found: true; value: unknown } | { found: false } {
  let value: unknown = data;
  for (const part of dotPath.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return { found: false };
    value = (value as Record<string, unknown>)[part];
  }
  return { found: true, value };
}

/** The literal input with the mapped values laid over it. */
export function buildInput(
  literal: Record<string, unknown> | undefined,
  mapping: Record<string, string> | undefined,
  data: unknown,
): Record<string, unknown> {
  const input: Record<string, unknown> = structuredClone(literal ?? {});
  for (const [field, path] of Object.entries(mapping ?? {})) {
    const read = readPath(data, path);
    if (read.found) input[field] = read.value;
  }
  return input;
}
