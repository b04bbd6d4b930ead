// How deeply JSON text nests, read without parsing it: bodies and module answers are refused past
// MAX_JSON_DEPTH before any recursive code (JSON.parse, Ajv, config walks, JSON.stringify) sees them.
// Pure and iterative, so text nested a million levels costs one pass and no stack.

/** Objects and arrays nested inside one another, the outermost counted as 1. */
export const MAX_JSON_DEPTH = 64;

interface Frame {
  array: boolean;
  /** Array: the index of the current item. */
  index: number;
  /** Object: where the current member's name (quotes included) starts and ends in the text. */
  keyStart: number;
  keyEnd: number;
  expectKey: boolean;
}

/**
 * The JSON Pointer of the first object or array that opens deeper than `maxDepth`, or null when the text
 * nests no deeper. Strings (escapes included) are skipped, so brackets inside them do not count. Text that
 * is not JSON is scanned as far as it goes: the parser that follows refuses it.
 */
export function depthExcess(text: string, maxDepth = MAX_JSON_DEPTH): string | null {
  const frames: Frame[] = [];
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      const end = stringEnd(text, i);
      const top = frames.at(-1);
      if (top && !top.array && top.expectKey) {
        top.keyStart = i;
        top.keyEnd = end + 1;
        top.expectKey = false;
      }
      i = end;
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      if (frames.length >= maxDepth) return pointerOf(text, frames);
      frames.push({ array: char === OPEN_BRACKET, index: 0, keyStart: 0, keyEnd: 0, expectKey: true });
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      frames.pop();
    } else if (char === COMMA) {
      const top = frames.at(-1);
      if (top?.array) top.index += 1;
      else if (top) top.expectKey = true;
    }
  }
  return null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** The index of the quote that closes the string opening at `start` (the text's end when none does). */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (char === BACKSLASH) i += 1;
    else if (char === QUOTE) return i;
  }
  return text.length;
}

function pointerOf(text: string, frames: Frame[]): string {
  return frames
    .map((frame) => {
      const token = frame.array ? String(frame.index) : memberName(text.slice(frame.keyStart, frame.keyEnd));
      return `/${token.replaceAll('~', '~0').replaceAll('/', '~1')}`;
    })
    .join('');
}

/** A member name as JSON means it (escapes decoded); its raw text when it is not a valid string. */
function memberName(quoted: string): string {
  try {
    const name: unknown = JSON.parse(quoted);
    return typeof name === 'string' ? name : quoted;
  } catch {
    return quoted;
  }
}

/** The sentence every refusal of too deep JSON uses. */
export const depthMessage = (maxDepth = MAX_JSON_DEPTH) =>
  `nests objects and arrays more than ${maxDepth} levels deep`;
