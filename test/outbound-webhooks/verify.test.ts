// The receiver's check the development listener uses, table-tested against signatures made here by hand
// (HMAC-SHA256 of "<t>.<body>" keyed with the secret's text), never by the platform's signing code.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyDelivery } from '../../src/outbound-webhooks/sending/verify.ts';

const SECRET = 'whsec_abc';
const BODY = '{"id":"e1","type":"ping"}';
const NOW = 1_900_000_000_000;
const T = NOW / 1000;
const v1 = (secret: string, t: number, body = BODY) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

describe('verifyDelivery', () => {
  const table: [string, string | undefined, boolean | string][] = [
    ['one matching v1', `t=${T},v1=${v1(SECRET, T)}`, true],
    ['the matching v1 second of two', `t=${T},v1=${v1('whsec_old', T)},v1=${v1(SECRET, T)}`, true],
    ['no header', undefined, 'no X-Service-Signature header'],
    ['no timestamp', `v1=${v1(SECRET, T)}`, 'no timestamp'],
    [
      'a timestamp 301 s old',
      `t=${T - 301},v1=${v1(SECRET, T - 301)}`,
      'timestamp more than five minutes from now',
    ],
    ['a timestamp 300 s old', `t=${T - 300},v1=${v1(SECRET, T - 300)}`, true],
    [
      'a timestamp 301 s ahead',
      `t=${T + 301},v1=${v1(SECRET, T + 301)}`,
      'timestamp more than five minutes from now',
    ],
    ['another secret', `t=${T},v1=${v1('whsec_other', T)}`, 'no signature matches the secret'],
    ['another timestamp than signed', `t=${T - 1},v1=${v1(SECRET, T)}`, 'no signature matches the secret'],
    ['a short v1', `t=${T},v1=abcd`, 'no signature matches the secret'],
    ['v0 only', `t=${T},v0=${v1(SECRET, T)}`, 'no signature matches the secret'],
  ];
  for (const [what, header, expected] of table) {
    it(what, () => {
      const verdict = verifyDelivery(header, BODY, SECRET, NOW);
      expect(verdict).toEqual(expected === true ? { ok: true } : { ok: false, reason: expected });
    });
  }
  it('refuses a body changed by one byte', () => {
    expect(verifyDelivery(`t=${T},v1=${v1(SECRET, T)}`, `${BODY} `, SECRET, NOW).ok).toBe(false);
  });
});
