// The redactor finds what a value means, not one spelling of it: the value as it is, in another letter
// case, percent-encoded (every byte too), JSON-escaped to the depth an answer holds, HTML-escaped, in
// base64 and hex; and in a parsed answer, inside strings that are JSON themselves.
import { describe, expect, it } from 'vitest';
import { drawSecretTag } from '../../src/runner/envelope.ts';
import type { ThreadCallState } from '../../src/runner/host/call-state.ts';
import { log, MAX_LOG_CHARS } from '../../src/runner/host/log.ts';
import { MIN_REDACTED_LENGTH, Redactor } from '../../src/runner/redaction.ts';
import { everySpelling, spellingsOf } from '../../src/runner/spellings.ts';

const SECRET = 'Key With/Space"\\‹ü>%';
const json = (text: string) => JSON.stringify(text).slice(1, -1);
const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');

function redactor(): Redactor {
  const r = new Redactor();
  r.secret('API_KEY', SECRET);
  return r;
}

describe('Redactor.apply', () => {
  it('replaces every spelling a vendor or a module may give the value', () => {
    const base64 = Buffer.from(SECRET, 'utf8').toString('base64');
    const spellings = {
      raw: SECRET,
      lower: SECRET.toLowerCase(),
      upper: SECRET.toUpperCase(),
      component: encodeURIComponent(SECRET),
      componentLowerHex: encodeURIComponent(SECRET).toLowerCase(),
      uri: encodeURI(SECRET),
      form: new URLSearchParams({ q: SECRET }).toString().slice(2),
      jsonOnce: json(SECRET),
      jsonTwice: json(json(SECRET)),
      jsonThrice: json(json(json(SECRET))),
      jsonAscii: json(SECRET).replace(
        /[^\x20-\x7e]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      ),
      jsonSlashes: json(SECRET).replaceAll('/', '\\/'),
      html: SECRET.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('>', '&gt;'),
      base64,
      base64Shifted: Buffer.from(`x${SECRET}`, 'utf8').toString('base64'),
      base64Shifted2: Buffer.from(`xy${SECRET}`, 'utf8').toString('base64'),
      hexLower: hex(SECRET),
      hexUpper: hex(SECRET).toUpperCase(),
      hexOfUpper: hex(SECRET.toUpperCase()),
      everyBytePercentUpper: hex(SECRET).toUpperCase().replace(/../g, '%$&'),
      everyBytePercentLower: hex(SECRET).replace(/../g, '%$&'),
      everyBytePercentTwice: hex(SECRET).replace(/../g, '%25$&'),
    };
    const r = redactor();
    for (const [name, spelling] of Object.entries(spellings)) {
      const out = r.apply(`before ${spelling} after`);
      expect({ name, out }).toEqual({ name, out: expect.stringContaining('[secret:API_KEY]') });
      for (const other of Object.values(spellings)) expect(out).not.toContain(other);
    }
  });

  it('redacts a long text (one compiled expression) as it redacts a short one (a scan)', () => {
    const r = new Redactor();
    r.secret('SHORT', 'abcdefgh');
    r.secret('LONG', 'abcdefgh-ijkl');
    r.secret('API_KEY', SECRET);
    const short = `x abcdefgh-ijkl y ABCDEFGH z ${encodeURIComponent(SECRET)} ${hex(SECRET)} abcdefg`;
    const padding = ' '.repeat(5000);
    expect(r.apply(short + padding)).toBe(r.apply(short) + padding);
    expect(r.apply(short)).toBe(
      `x [secret:LONG] y [secret:SHORT] z [secret:API_KEY] [secret:API_KEY] abcdefg`,
    );
  });

  it('keeps text around a value, longest value first', () => {
    const r = new Redactor();
    r.secret('SHORT', 'abcdefgh');
    r.secret('LONG', 'abcdefgh-ijkl');
    expect(r.apply('x abcdefgh-ijkl y ABCDEFGH z')).toBe('x [secret:LONG] y [secret:SHORT] z');
  });

  it('registers every spelling of a value that is another value’s spelling', () => {
    const r = new Redactor();
    r.secret('UPPER', 'ABCDEFGH-XYZ');
    r.secret('LOWER', 'abcdefgh-xyz');
    expect(r.apply(Buffer.from('abcdefgh-xyz').toString('base64'))).toContain('[secret:');
  });

  it('leaves values under the minimum length alone', () => {
    const r = new Redactor();
    r.secret('TINY', 'a'.repeat(MIN_REDACTED_LENGTH - 1));
    expect(r.apply('aaaaaaaaaaaa')).toBe('aaaaaaaaaaaa');
  });

  it('leaves cached values to the module in what a vendor answered, but not in its answer', () => {
    const r = new Redactor();
    r.cached('token', 'cached-token-123');
    r.secret('API_KEY', 'sk-live-0123456789');
    expect(r.applySecrets('cached-token-123 sk-live-0123456789')).toBe('cached-token-123 [secret:API_KEY]');
    expect(r.apply('cached-token-123 sk-live-0123456789')).toBe('[cache:token] [secret:API_KEY]');
  });

  it('spells a value registered after a redaction at the next one, for each kind of redaction', () => {
    // Values are spelled when a matcher is next needed: what came since the last must not be missed.
    const r = new Redactor();
    r.secret('API_KEY', 'sk-live-0123456789');
    expect(r.apply('derived-credential-xyz')).toBe('derived-credential-xyz');
    expect(r.applySecrets('derived-credential-xyz')).toBe('derived-credential-xyz');
    r.derived('bearer', 'derived-credential-xyz');
    expect(r.applySecrets(`"${hex('derived-credential-xyz')}"`)).toBe('"[auth:bearer]"');
    expect(r.applySecretsToBytes(Buffer.from('x derived-credential-xyz')).toString()).toBe('x [auth:bearer]');
    r.cached('token', 'cached-token-123');
    // A cached value added after the secrets' matcher was built: that matcher still leaves it alone.
    expect(r.applySecrets('cached-token-123 DERIVED-CREDENTIAL-XYZ')).toBe('cached-token-123 [auth:bearer]');
    expect(r.apply('cached-token-123 sk-live-0123456789')).toBe('[cache:token] [secret:API_KEY]');
  });

  it('gives a spelling the label of the value registered first, however late the values are spelled', () => {
    // The second value is the first one's hex spelling: whichever came first labels that text.
    const value = 'shared-value-0001';
    const labelled = (first: [string, string], second: [string, string]) => {
      const r = new Redactor();
      r.secret(...first);
      r.secret(...second);
      return r.apply(hex(value));
    };
    expect(labelled(['VALUE', value], ['HEX', hex(value)])).toBe('[secret:VALUE]');
    expect(labelled(['HEX', hex(value)], ['VALUE', value])).toBe('[secret:HEX]');
  });
});

describe('Redactor.applyDeep', () => {
  it('redacts strings of a parsed answer, its keys and JSON nested in its strings', () => {
    const r = redactor();
    const vendorBody = JSON.stringify({ q: SECRET, [SECRET]: 1 }).replace(/ü/g, '\\u00fc');
    const answer = {
      body: JSON.stringify({ nested: vendorBody }),
      list: [`a ${SECRET} b`],
      [`k-${SECRET}`]: true,
    };
    const out = r.applyDeep(answer) as Record<string, unknown>;
    const text = JSON.stringify(out);
    expect(text).not.toContain('Key With');
    expect(text).not.toContain('key with');
    expect(out.list).toEqual(['a [secret:API_KEY] b']);
    expect(out['k-[secret:API_KEY]']).toBe(true);
    const nested = JSON.parse(JSON.parse(out.body as string).nested);
    expect(nested).toEqual({ q: '[secret:API_KEY]', '[secret:API_KEY]': 1 });
  });

  it('walks an answer nested deeper than the stack would allow', () => {
    const r = redactor();
    let deep: unknown = [SECRET];
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let out = r.applyDeep(deep);
    for (let i = 0; i < 100_000; i++) out = (out as unknown[])[0];
    expect(out).toEqual(['[secret:API_KEY]']);
  });
});

describe('log', () => {
  it('redacts a line before cutting it, so a secret across the cut leaves nothing of itself', () => {
    const redactor = new Redactor();
    redactor.secret('API_KEY', 'sk-live-straddle');
    const state: ThreadCallState = {
      secretTag: drawSecretTag(),
      secrets: new Map(),
      redactor,
      logs: [],
      usage: { logLines: 0 },
    };
    const message = `${'y'.repeat(MAX_LOG_CHARS - 8)}sk-live-straddle`;
    expect(log(state, { message })).toEqual({ ok: true });
    expect(state.logs[0]?.message).toBe(
      `${'y'.repeat(MAX_LOG_CHARS - 8)}[secret:API_KEY]`.slice(0, MAX_LOG_CHARS),
    );
    expect(state.logs[0]?.message).not.toContain('sk-');
  });
});

describe('spellingsOf', () => {
  it('answers a value of characters no encoding changes as the long way does', () => {
    for (const value of ['sk-bench-123456', 'AbC_d.e-f0123456789', drawSecretTag(), 'lower.case_only', '']) {
      expect(spellingsOf(value)).toEqual(everySpelling(value));
    }
  });
});
