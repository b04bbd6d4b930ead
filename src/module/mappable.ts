// Which input fields run data may fill (an action's `mappable`; docs/calls.md, docs/runs.md "Validation"):
// an action's `mappable` JSON Pointers against the keys of a step's or rule's inputMapping. Pure; used by
// definition validation (unmappable_input) and by every call's admission (validation_error), so the two
// never disagree.
import { pointerTokens } from './names.ts';

/** Whether `segments` starts with every token of `prefix`. */
const startsWith = (segments: string[], prefix: string[]): boolean =>
  prefix.length <= segments.length && prefix.every((token, i) => segments[i] === token);

/**
 * The mapping keys an action's mappable pointers refuse, in mapping order (none when the action declares
 * no mappable, or there is no mapping). A key may set a declared field or one under it: its dot segments
 * start with the pointer's tokens. Pointer tokens are compared unescaped (~1 is "/", ~0 is "~") with the
 * key's segments as written: key "a/b" is pointer "/a~1b", key "x~y" is "/x~0y", and key "a~1b" (text ~1)
 * is "/a~01b". A pointer token holding a dot can be named by no key, since every dot separates.
 */
export function unmappableKeys(
  mappable: readonly string[] | undefined,
  mapping: Record<string, string> | undefined,
): string[] {
  if (mappable === undefined || mapping === undefined) return [];
  const declared = mappable.map(pointerTokens);
  return Object.keys(mapping).filter((key) => !declared.some((tokens) => startsWith(key.split('.'), tokens)));
}
