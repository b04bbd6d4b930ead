// The SDK's JSON toolkit, run inside a real module: texts parsed and written again must read as
// JavaScript reads them, strings and integers exactly as JSON.stringify writes them, and what JSON
// refuses is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSdkApp, type SdkApp } from './sdk-harness.ts';

let app: SdkApp;
beforeAll(async () => {
  app = await loadSdkApp();
}, 120_000);
afterAll(async () => {
  await app?.close();
});

interface RoundTrip {
  ok: boolean;
  text?: string;
  error?: string;
}

async function roundTrip(texts: string[]): Promise<RoundTrip[]> {
  const { answer } = await app.invoke('json_roundtrip', { texts });
  return (answer as { output: { results: RoundTrip[] } }).output.results;
}

const exact = [
  'null',
  'true',
  'false',
  '0',
  '-7',
  '""',
  '"plain"',
  '"quote \\" backslash \\\\ slash / controls \\b\\f\\n\\r\\t \\u0000 \\u001f"',
  '"é 😀 中文"',
  '"\\u00e9\\ud83d\\ude00"',
  '"lone \\ud800 and \\udc00 halves"',
  '[]',
  '{}',
  '[1,[2,[3,{"a":[]}]]]',
  '{"b":1,"a":2,"c":{"z":null,"y":[true,false]}}',
  '{"a":1,"b":2,"a":3}',
  '"\\u2028\\u2029"',
];

const numeric = [
  '1.5',
  '-0.25',
  '1e21',
  '1E+2',
  '2.5e-7',
  '0.1',
  '123456789.123456789',
  '1.7976931348623157e308',
  '5e-324',
  '12345678901234567890',
  '-0',
  '1e400',
  '3.0',
];

describe('JSON toolkit round trips', () => {
  it('writes strings, integers, literals and containers exactly as JSON.stringify', async () => {
    const results = await roundTrip(exact);
    results.forEach((result, i) => {
      const text = exact[i] as string;
      expect(result, text).toEqual({ ok: true, text: JSON.stringify(JSON.parse(text)) });
    });
  });

  it('reads numbers to the value JavaScript reads', async () => {
    const results = await roundTrip(numeric);
    results.forEach((result, i) => {
      const text = numeric[i] as string;
      expect(result.ok, text).toBe(true);
      const expected = JSON.parse(text) as number;
      const got = JSON.parse(result.text as string) as number | null;
      // Infinity has no JSON spelling: written as null, like JSON.stringify.
      if (!Number.isFinite(expected)) expect(got).toBeNull();
      else expect(got, `${text} → ${result.text}`).toBe(expected === 0 ? 0 : expected);
    });
  });

  it('keeps integers beyond 2^53 exactly, where JavaScript rounds them', async () => {
    const texts = ['9007199254740993', '-9223372036854775808', '9223372036854775807', '[18014398509481985]'];
    expect(await roundTrip(texts)).toEqual(texts.map((text) => ({ ok: true, text })));
  });

  it('tolerates whitespace and keeps member order', async () => {
    const [result] = await roundTrip([' \n\t{ "z" : [ 1 , 2 ] ,\r\n "a" : { } } ']);
    expect(result).toEqual({ ok: true, text: '{"z":[1,2],"a":{}}' });
  });

  it('refuses what is not JSON, saying where', async () => {
    const bad = [
      '',
      ' ',
      '{',
      '[1,]',
      '{"a":1,}',
      '{a:1}',
      "'x'",
      '01',
      '1.',
      '.5',
      '-',
      '1e',
      '+1',
      'NaN',
      'Infinity',
      'tru',
      'nul',
      '"unterminated',
      '"bad \\x escape"',
      '"\\u12"',
      '"\\u12g4"',
      '"raw \n newline"',
      '[1 2]',
      '{"a" 1}',
      '{"a":1}}',
      '1 2',
    ];
    const results = await roundTrip([...bad, `${'['.repeat(600)}${']'.repeat(600)}`]);
    results.forEach((result, i) => {
      if (i < bad.length) expect(() => JSON.parse(bad[i] as string)).toThrow();
      expect(result.ok, JSON.stringify(bad[i])).toBe(false);
      expect(result.error).toMatch(/ at position \d+$/);
    });
    // JavaScript reads any depth; the toolkit stops at 512 levels rather than exhausting its stack.
    expect(results.at(-1)?.error).toMatch(/^nesting deeper than 512 levels/);
  });

  it('parses nesting up to the depth limit and large texts', async () => {
    const deep = `${'['.repeat(500)}1${']'.repeat(500)}`;
    const large = JSON.stringify(
      Array.from({ length: 2000 }, (_, i) => ({
        id: i,
        name: `item ${i} ✓`,
        tags: ['a', 'b'],
        score: i / 7,
      })),
    );
    const [d, l] = await roundTrip([deep, large]);
    expect(d).toEqual({ ok: true, text: deep });
    expect(JSON.parse(l?.text as string)).toEqual(JSON.parse(large));
  });
});

describe('JSON values built in the module', () => {
  it('constructs, sets, removes, reads and compares', async () => {
    const { answer } = await app.invoke('json_build', {});
    const report = (answer as { output: Record<string, unknown> }).output;
    const built = {
      s: 'a"b\\c\n\u0001é😀',
      f: 1.5,
      whole: 3,
      big: 1e21,
      tiny: 1e-7,
      nan: null,
      i: 9007199254740993n,
      min: -9223372036854775808n,
      t: true,
      n: null,
      list: [1, 'two', []],
      nested: { deep: { 'x~/y': 'found' } },
      s2: 'replaced',
    };
    // The text is what JSON.stringify writes, integers beyond 2^53 exactly.
    expect(report.text).toBe(
      JSON.stringify(built, (_k, v) => (typeof v === 'bigint' ? `@${v}@` : v)).replace(/"@(-?\d+)@"/g, '$1'),
    );
    expect(report).toMatchObject({
      removed: true,
      removedAgain: false,
      keys: ['a', 'b', 'big', 'neg'],
      a: 7,
      length: 4,
      b0: true,
      b1null: true,
      b2: 2.5,
      b3: 'x',
      bigExact: true,
      bigNumber: 12345678901234567000,
      neg: '0',
      deep: 'found',
      missing: true,
      badIndex: true,
      fallback: 'fb',
      wrongKind: -1,
      equal: true,
      unequal: false,
      kinds: true,
      quoted: '"\\ud800x"',
      size: 4,
    });
  });
});
