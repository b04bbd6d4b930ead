// Reading an install's config by JSON Pointer and naming the places of its text, for the
// install rules that point an issue at a config field. Pure: the config is JSON as the tenant saved it.
import { pointerTokens } from '../module/index.ts';

/** One reason a save is refused: where in the config (a JSON Pointer) and why. Never echoes a secret. */
export interface ConfigIssue {
  path: string;
  message: string;
}

const ARRAY_INDEX = /^(?:0|[1-9]\d*)$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The value at `pointer` in `config`, or undefined when nothing is there. Only own members are read (a
 * pointer such as /constructor finds nothing), and array items only by canonical index (/items/01 does not
 * name /items/1). The empty pointer names the whole config.
 */
export function valueAt(config: unknown, pointer: string): unknown {
  if (pointer === '') return config;
  let node: unknown = config;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(node)) {
      if (!ARRAY_INDEX.test(token)) return undefined;
      node = node[Number(token)];
    } else if (isRecord(node)) {
      if (!Object.hasOwn(node, token)) return undefined;
      node = node[token];
    } else {
      return undefined;
    }
  }
  return node;
}

/** The pointer of member or item `token` under `parent` ("~" and "/" escaped as RFC 6901 asks). */
export function childPointer(parent: string, token: string | number): string {
  const text = String(token).replaceAll('~', '~0').replaceAll('/', '~1');
  return `${parent}/${text}`;
}

/**
 * Calls `visit` with every text value of the config and its pointer, in document order. Member names are
 * not text values: the platform reads placeholders in values only, as the runner tags them. Iterative (an
 * explicit stack, children pushed in reverse), so no nesting depth can overflow the call stack.
 */
export function forEachText(
  config: unknown,
  visit: (text: string, pointer: string) => void,
  pointer = '',
): void {
  const pending: [unknown, string][] = [[config, pointer]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, at] = next;
    if (typeof node === 'string') {
      visit(node, at);
      continue;
    }
    const children: [unknown, string][] = Array.isArray(node)
      ? node.map((item, index) => [item, childPointer(at, index)])
      : isRecord(node)
        ? Object.entries(node).map(([key, item]) => [item, childPointer(at, key)])
        : [];
    for (let i = children.length - 1; i >= 0; i -= 1) pending.push(children[i] as [unknown, string]);
  }
}
