// Input mapping (spec part 1 §4.8 "Calling an install from workflows and rules"). Minimal stand-in for
// the input-mapping helper's module: only the check definitions validate with. Pure.
import { pointerTokens } from '../module/names.ts';

/**
 * The keys of an inputMapping that the action's mappable refuses, in the mapping's order. A key is a dot
 * path naming the input field it sets; it may set a declared field or one under it. Without mappable the
 * action takes any key.
 */
export function unmappableKeys(
  mappable: readonly string[] | undefined,
  mapping: Record<string, string> | undefined,
): string[] {
  if (mappable === undefined || mapping === undefined) return [];
  const declared = mappable.map(pointerTokens);
  return Object.keys(mapping).filter((key) => {
    const tokens = key.split('.');
    return !declared.some(
      (fields) => fields.length <= tokens.length && fields.every((field, i) => field === tokens[i]),
    );
  });
}
