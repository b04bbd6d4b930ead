// The signed-webhook builders, checked with node:crypto the way a receiver verifies each scheme.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signedWebhook, standardWebhook, timestampedWebhook } from '../../packages/app-testing/src/index.ts';

const hmac = (key: string | Buffer, message: string) => createHmac('sha256', key).update(message);
const same = (a: string, b: string) =>
  a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

describe('signedWebhook', () => {
  it('signs the body with hex HMAC-SHA256 in x-signature by default, keeping the body as sent', () => {
    const body = '{"session":"sess_1","decision":"approved"}';
    const request = signedWebhook({ secret: 'shh-secret', body });
    expect(request.method).toBe('POST');
    expect(request.body).toBe(body);
    expect(request.headers['content-type']).toBe('application/json');
    expect(same(request.headers['x-signature'] ?? '', hmac('shh-secret', body).digest('hex'))).toBe(true);
  });

  it('takes another header, a prefix, bytes, a JSON value, query and extra headers', () => {
    const bytes = new Uint8Array([0x7b, 0x7d, 0xff]);
    const raw = signedWebhook({ secret: 'k', body: bytes, header: 'X-Hub-Signature-256', prefix: 'sha256=' });
    expect(raw.body).toEqual(bytes);
    const expected = createHmac('sha256', 'k').update(bytes).digest('hex');
    expect(raw.headers['X-Hub-Signature-256']).toBe(`sha256=${expected}`);

    const json = signedWebhook({
      secret: 'k',
      body: { a: 1 },
      query: { externalId: 'x-1' },
      headers: { 'X-Event': 'done' },
    });
    expect(json.body).toBe('{"a":1}');
    expect(json.query).toEqual({ externalId: 'x-1' });
    expect(json.headers['x-event']).toBe('done');
    expect(json.headers['x-signature']).toBe(hmac('k', '{"a":1}').digest('hex'));
  });

  it('timestamped: signs "<seconds>.<body>" and sends the seconds in x-timestamp', () => {
    const request = timestampedWebhook({ secret: 'k', body: 'hello', timestamp: 1_700_000_000 });
    expect(request.headers['x-timestamp']).toBe('1700000000');
    expect(request.headers['x-signature']).toBe(hmac('k', '1700000000.hello').digest('hex'));
    const before = Math.floor(Date.now() / 1000);
    const now = timestampedWebhook({ secret: 'k', body: 'hello', timestampHeader: 'x-sent-at' });
    const after = Math.floor(Date.now() / 1000);
    const seconds = Number(now.headers['x-sent-at']);
    expect(seconds >= before && seconds <= after).toBe(true);
    expect(now.headers['x-signature']).toBe(hmac('k', `${seconds}.hello`).digest('hex'));
  });

  it('Standard Webhooks: webhook-id, webhook-timestamp and v1,<base64> over "<id>.<seconds>.<body>"', () => {
    const key = Buffer.from('0123456789abcdef0123456789abcdef');
    const secret = `whsec_${key.toString('base64')}`;
    const request = standardWebhook({
      secret,
      body: '{"type":"done"}',
      id: 'msg_1',
      timestamp: 1_700_000_000,
    });
    expect(request.headers['webhook-id']).toBe('msg_1');
    expect(request.headers['webhook-timestamp']).toBe('1700000000');
    const expected = hmac(key, 'msg_1.1700000000.{"type":"done"}').digest('base64');
    expect(request.headers['webhook-signature']).toBe(`v1,${expected}`);
    // A secret without the whsec_ prefix is used as its UTF-8 bytes; an id is drawn when none is given.
    const plain = signedWebhook({ scheme: 'standard-webhooks', secret: 'plain', body: 'b', timestamp: 1 });
    const id = plain.headers['webhook-id'] ?? '';
    expect(id).toMatch(/^msg_/);
    expect(plain.headers['webhook-signature']).toBe(`v1,${hmac('plain', `${id}.1.b`).digest('base64')}`);
  });
});
