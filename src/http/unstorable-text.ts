// Text PostgreSQL cannot store: U+0000 (refused by text and jsonb alike) and lone UTF-16 surrogates
// (\ud800–\udfff without their pair: no UTF-8 spelling, so JSON's "\ud800" is refused by jsonb and
// written as U+FFFD by text). The platform's one rule at its JSON boundary (docs/module-contract.md,
// docs/api-conventions.md): a module's answer has them replaced with U+FFFD before anything stores or
// shows it; a request holding them is refused with their path. Pure and iterative.

import { isJsonContainer, rewriteStrings } from './json-strings.ts';

/** U+0000, a high surrogate not followed by a low one, a low surrogate not preceded by a high one. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what this looks for.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export const REPLACEMENT_CHARACTER = '\ufffd';

/** Whether `text` holds a character PostgreSQL cannot store. */
export function isUnstorable(text: string): boolean {
  UNSTORABLE.lastIndex = 0;
  return UNSTORABLE.test(text);
}

/** `text` with every U+0000 and lone surrogate replaced with U+FFFD (paired surrogates are kept). */
export function storableText(text: string): string {
  return isUnstorable(text) ? text.replace(UNSTORABLE, REPLACEMENT_CHARACTER) : text;
}

/**
 * Whether JSON text may hold such a character once parsed: only a \u escape can write one (JSON refuses a
 * raw U+0000, and UTF-8 has no lone surrogates). May answer true for text that holds none (an escaped
 * backslash before "u0000"); never false for text that does.
 */
export const mayHoldUnstorable = (jsonText: string): boolean => /\\u(?:0000|[dD][89a-fA-F])/.test(jsonText);

/**
 * Replaces such characters in every string and member name of a parsed JSON value, in place; answers the
 * value (a string: the replaced string). Two names that differ only there become one: the later member
 * wins, as with a name JSON.parse reads twice.
 */
export const storableJson = (root: unknown): unknown => rewriteStrings(root, storableText);

/** Whether any string or member name of a parsed value holds such a character; allocates nothing per node. */
export function holdsUnstorable(root: unknown): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (isUnstorable(value)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (isJsonContainer(value)) {
      for (const [key, item] of Object.entries(value)) {
        if (isUnstorable(key)) return true;
        stack.push(item);
      }
    }
  }
  return false;
}

const pointerToken = (key: string) => storableText(key).replaceAll('~', '~0').replaceAll('/', '~1');

/**
 * JSON Pointers (RFC 6901) of the strings and member names of a parsed value that hold such characters,
 * in document order, at most `limit`. A name is written with U+FFFD in its place, so the pointer itself
 * can be stored and shown.
 */
export function unstorablePointers(root: unknown, limit = 20): string[] {
  const found: string[] = [];
  const stack: { value: unknown; pointer: string; badName: boolean }[] = [
    { value: root, pointer: '', badName: false },
  ];
  for (let top = stack.pop(); top !== undefined && found.length < limit; top = stack.pop()) {
    const { value, pointer } = top;
    if (top.badName || (typeof value === 'string' && isUnstorable(value))) found.push(pointer);
    if (!isJsonContainer(value)) continue;
    const entries = Array.isArray(value)
      ? value.map((item, index) => [String(index), item] as const)
      : Object.entries(value);
    // Pushed in reverse, so the first member is reported first.
    for (const [key, item] of entries.reverse()) {
      const badName = !Array.isArray(value) && isUnstorable(key);
      stack.push({ value: item, pointer: `${pointer}/${pointerToken(key)}`, badName });
    }
  }
  return found;
}
