// What an attempt keeps of a receiver's answer (src/outbound-webhooks/sending/response-excerpt-rules.ts): its first KiB
// as text, storable and safe to show.
import { describe, expect, it } from 'vitest';
import {
  EXCERPT_BYTES,
  responseExcerpt,
} from '../../src/outbound-webhooks/sending/response-excerpt-rules.ts';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

describe('responseExcerpt', () => {
  it.each([
    ['nothing', bytes(), null],
    ['plain text', bytes('{"ok":true}'), '{"ok":true}'],
    ['tabs and line breaks kept', bytes('a\tb\r\nc'), 'a\tb\r\nc'],
    ['U+0000 (PostgreSQL refuses it)', bytes('a\u0000b'), 'a\ufffdb'],
    ['other C0 controls', bytes('a\u001b[31mb\u0007'), 'a\ufffd[31mb\ufffd'],
    ['DEL and C1 controls', bytes('a\u007fb\u0085'), 'a\ufffdb\ufffd'],
    [
      'bidirectional overrides and isolates',
      bytes('invoice\u202etxt.exe \u2066x\u2069'),
      'invoice\ufffdtxt.exe \ufffdx\ufffd',
    ],
    ['an invalid byte', bytes([0x61, 0xff, 0x62]), 'a\ufffdb'],
    ['joiners scripts need', bytes('\u200d\u200c'), '\u200d\u200c'],
  ])('%s', (_what, input, expected) => {
    expect(responseExcerpt(input)).toBe(expected);
  });

  it('keeps the first KiB, leaving out a character the cut splits', () => {
    expect(responseExcerpt(bytes('x'.repeat(EXCERPT_BYTES + 500)))).toBe('x'.repeat(EXCERPT_BYTES));
    // 'é' is two bytes; its first is the 1024th.
    expect(responseExcerpt(bytes('x'.repeat(EXCERPT_BYTES - 1), 'é'))).toBe('x'.repeat(EXCERPT_BYTES - 1));
    expect(responseExcerpt(bytes('x'.repeat(EXCERPT_BYTES - 2), 'é'))).toBe(
      `${'x'.repeat(EXCERPT_BYTES - 2)}é`,
    );
  });
});
