// Where a JSON body first goes wrong, for a refusal the sender can act on ("at line 3, column 9"). The
// parser's own message is not used: it may quote the body, and the body may hold a secret. Pure; only run
// on text the parser refused, whose nesting is already bounded (json-depth.ts), so recursion is safe.

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

class Stop {
  constructor(readonly at: number) {}
}

/** The index of the first character that makes text not JSON (text.length when it ends early), or null. */
export function jsonErrorIndex(text: string): number | null {
  let i = 0;
  const fail = (): never => {
    throw new Stop(i);
  };
  const skipSpace = () => {
    while (i < text.length && WHITESPACE.has(text[i] as string)) i += 1;
  };
  const expect = (char: string) => {
    skipSpace();
    if (text[i] !== char) fail();
    i += 1;
  };
  const string = () => {
    expect('"');
    while (text[i] !== '"') {
      if (i >= text.length || text.charCodeAt(i) < 0x20) fail();
      if (text[i] === '\\') {
        ESCAPE.lastIndex = i;
        if (!ESCAPE.test(text)) fail();
        i = ESCAPE.lastIndex;
      } else i += 1;
    }
    i += 1;
  };
  const members = (close: string, member: () => void) => {
    skipSpace();
    if (text[i] === close) {
      i += 1;
      return;
    }
    for (;;) {
      member();
      skipSpace();
      if (text[i] === close) break;
      if (text[i] !== ',') fail();
      i += 1;
    }
    i += 1;
  };
  const literal = () => {
    const word = ['true', 'false', 'null'].find((w) => w[0] === text[i]);
    if (!word) fail();
    for (const char of word as string) {
      if (text[i] !== char) fail();
      i += 1;
    }
  };
  const value = (): void => {
    skipSpace();
    const char = text[i];
    if (char === '{' || char === '[') {
      i += 1;
      if (char === '[') members(']', value);
      else
        members('}', () => {
          string();
          expect(':');
          value();
        });
    } else if (char === '"') string();
    else if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) number();
    else literal();
  };
  const number = () => {
    NUMBER.lastIndex = i;
    if (!NUMBER.test(text)) fail();
    i = NUMBER.lastIndex;
  };
  try {
    value();
    skipSpace();
    if (i < text.length) fail();
    return null;
  } catch (stop) {
    if (stop instanceof Stop) return stop.at;
    throw stop;
  }
}

/** Where text first goes wrong, in words: `at line 2, column 5`, or null when it is JSON. */
export function jsonErrorPlace(text: string): string | null {
  const index = jsonErrorIndex(text);
  if (index === null) return null;
  const before = text.slice(0, index);
  const place = `at line ${before.split('\n').length}, column ${index - before.lastIndexOf('\n')}`;
  return index >= text.length ? `${place}, where it ends unfinished` : place;
}
