import { describe, expect, it } from 'vitest';
import { cellText, escapeText, json, record, table } from '../../src/ops/output.ts';

describe('escapeText: what a tenant wrote reaches a terminal inert', () => {
  it.each([
    ['plain text stays', 'acme screening', 'acme screening'],
    ['a newline', 'a\nb', 'a\\nb'],
    ['a carriage return and a tab', 'a\rb\tc', 'a\\rb\\tc'],
    ['an ANSI colour', '\u001b[31mred', '\\u{1b}[31mred'],
    ['a C1 control (CSI)', 'x\u009by', 'x\\u{9b}y'],
    ['DEL', 'x\u007fy', 'x\\u{7f}y'],
    ['a right-to-left override', 'abc\u202egpj.exe', 'abc\\u{202e}gpj.exe'],
    ['an isolate and a mark', '\u2066a\u2069\u200f', '\\u{2066}a\\u{2069}\\u{200f}'],
    ['the Arabic letter mark', 'a\u061cb', 'a\\u{61c}b'],
    ['a backslash is doubled, so no escape can be forged', 'a\\nb', 'a\\\\nb'],
    ['letters of any script stay', 'Zürich 東京 مرحبا', 'Zürich 東京 مرحبا'],
  ])('%s', (_case, text, printed) => {
    expect(escapeText(text)).toBe(printed);
  });
});

describe('cellText', () => {
  it.each([
    [null, '-'],
    [undefined, '-'],
    ['', '-'],
    [[], '-'],
    [['a.example', 'b.example'], 'a.example,b.example'],
    [3, '3'],
    [false, 'false'],
    [new Date('2026-11-26T10:00:00Z'), '2026-11-26T10:00:00.000Z'],
    [{ a: 1 }, '{"a":1}'],
    [['x\ny'], 'x\\ny'],
  ])('%j prints as %s', (value, printed) => {
    expect(cellText(value)).toBe(printed);
  });
});

describe('table', () => {
  it('aligns columns by code points, escapes cells and leaves the last column unpadded', () => {
    const text = table(
      [
        { name: 'ä-app', note: 'ok' },
        { name: 'evil\u202e', note: 'line\nbreak' },
      ],
      [
        { header: 'NAME', value: (r) => r.name },
        { header: 'NOTE', value: (r) => r.note },
      ],
    );
    expect(text).toBe(
      ['NAME          NOTE', 'ä-app         ok', 'evil\\u{202e}  line\\nbreak', ''].join('\n'),
    );
  });

  it('prints the header alone for no rows', () => {
    expect(table([], [{ header: 'ID', value: () => 1 }])).toBe('ID\n');
  });
});

describe('record', () => {
  it('aligns labels', () => {
    expect(
      record([
        ['id', 'x'],
        ['status', 'published'],
      ]),
    ).toBe('id      x\nstatus  published\n');
  });
});

describe('json: what --json prints is as inert as the tables', () => {
  it.each([
    ['a right-to-left override', 'abc\u202egpj.exe', 'abc\\u202egpj.exe'],
    ['a C1 control (CSI)', 'x\u009by', 'x\\u009by'],
    ['DEL', 'x\u007fy', 'x\\u007fy'],
    ['an isolate and a mark', '\u2066a\u2069\u200f', '\\u2066a\\u2069\\u200f'],
    ['the Arabic letter mark', 'a\u061cb', 'a\\u061cb'],
    ['an ANSI colour (JSON escapes C0 itself)', '\u001b[31mred', '\\u001b[31mred'],
    ['a newline', 'a\nb', 'a\\nb'],
    ['letters of any script stay', 'Zürich 東京 مرحبا', 'Zürich 東京 مرحبا'],
  ])('%s in a value or a key prints as an escape', (_case, text, escaped) => {
    const printed = json({ [text]: [text] });
    expect(printed).toBe(`{\n  "${escaped}": [\n    "${escaped}"\n  ]\n}\n`);
    expect(JSON.parse(printed)).toEqual({ [text]: [text] });
  });

  it('leaves no control or bidirectional character raw, whatever the text (only its own line breaks)', () => {
    const every = Array.from({ length: 0xa0 }, (_, c) => String.fromCharCode(c)).join('');
    const text = `${every}\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069`;
    const printed = json({ text });
    expect(printed.replace(/\n/g, '')).not.toMatch(
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must not be printed raw
      /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u,
    );
    expect(JSON.parse(printed)).toEqual({ text });
  });
});
