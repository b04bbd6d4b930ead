// One walk over a parsed JSON value that rewrites every string and member name in place: what redaction
// (runner/redaction.ts) and the storable-text rule (unstorable-text.ts) both do, with their own rewrite.
// Iterative, so a deep value cannot overflow the stack.

export type JsonContainer = Record<string, unknown> | unknown[];

export const isJsonContainer = (value: unknown): value is JsonContainer =>
  typeof value === 'object' && value !== null;

/**
 * Rewrites every string and member name of `root` with `rewrite`, in place; answers the value (a string:
 * the rewritten string). Two names that rewrite to one become one: the later member wins, as with a name
 * JSON.parse reads twice.
 */
export function rewriteStrings(root: unknown, rewrite: (text: string) => string): unknown {
  if (typeof root === 'string') return rewrite(root);
  if (!isJsonContainer(root)) return root;
  const stack: JsonContainer[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const item = node[i];
        if (typeof item === 'string') node[i] = rewrite(item);
        else if (isJsonContainer(item)) stack.push(item);
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const item = node[key];
      const value = typeof item === 'string' ? rewrite(item) : item;
      if (isJsonContainer(value)) stack.push(value);
      const name = rewrite(key);
      if (name === key) {
        node[key] = value;
      } else {
        delete node[key];
        // defineProperty: a name such as __proto__ stays a plain member, as JSON.parse made it.
        Object.defineProperty(node, name, { value, enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return root;
}
