// The shared server of src/http/server.ts with test-only routes, over real HTTP: what a bug (a thrown
// error) answers and logs, a route's own Cache-Control, and Fastify's own errors in the one body.
import type { AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../src/http/server.ts';
import { createLogger } from '../../src/logging.ts';
import { expectError, linesOf } from './expect.ts';

const SECRET_TEXT = 'connect ECONNREFUSED db-7.internal password=hunter2';

let app: FastifyInstance;
let base: string;
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger({ service: 'server-test', level: 'info', env: 'test', destination });
  app = (await createServer({ logger })) as unknown as FastifyInstance;
  app.get('/boom', async () => {
    throw new Error(SECRET_TEXT);
  });
  app.get('/boom-status', async () => {
    // An error that claims a 5xx status of its own is still a bug to the caller.
    throw Object.assign(new Error(SECRET_TEXT), { statusCode: 503 });
  });
  app.get('/plain', async () => ({ ok: true }));
  app.get('/cached', async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=60');
    return { ok: true };
  });
  app.post(
    '/shrunk',
    {
      // Hands the parser fewer bytes than Content-Length announced, as a broken decoder would.
      preParsing: async () => Readable.from([Buffer.from('{}')]),
    },
    async () => ({ ok: true }),
  );
  app.post('/echo', async (request) => ({ body: request.body }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => app?.close());

describe('a thrown bug', () => {
  it('answers 500 internal without the thrown message', async () => {
    const response = await fetch(`${base}/boom`);
    const error = await expectError(response, 500, 'internal');
    expect(error.message).toBe('internal error');
    expect(error.details).toBeUndefined();
    expect(JSON.stringify(error)).not.toContain('hunter2');
    expect(JSON.stringify(error)).not.toContain('ECONNREFUSED');
  });

  it('echoes the caller’s x-request-id on the 500', async () => {
    const response = await fetch(`${base}/boom`, { headers: { 'x-request-id': 'five-hundred.1' } });
    expect((await expectError(response, 500, 'internal')).requestId).toBe('five-hundred.1');
  });

  it('is logged once, as an error line carrying the thrown error', async () => {
    const response = await fetch(`${base}/boom`, { headers: { 'x-request-id': 'logged-500' } });
    await expectError(response, 500, 'internal');
    const lines = await linesOf(logs, 'logged-500');
    expect(lines).toHaveLength(1);
    const line = lines[0] as Record<string, unknown> & { err: { message: string; stack: string } };
    expect(line).toMatchObject({
      level: 'error',
      statusCode: 500,
      code: 'internal',
      method: 'GET',
      route: '/boom',
      service: 'server-test',
    });
    expect(line.err.message).toBe(SECRET_TEXT);
    expect(line.err.stack).toContain('server.test.ts');
  });

  it('hides an error’s own 5xx status and message too', async () => {
    const error = await expectError(await fetch(`${base}/boom-status`), 500, 'internal');
    expect(JSON.stringify(error)).not.toContain('hunter2');
  });

  it('does not log the error on answers that are not 5xx', async () => {
    const response = await fetch(`${base}/nowhere`, { headers: { 'x-request-id': 'logged-404' } });
    await expectError(response, 404, 'not_found');
    const [line, ...more] = await linesOf(logs, 'logged-404');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 'info', statusCode: 404, code: 'not_found', route: null });
    expect(line).not.toHaveProperty('err');
  });
});

describe('Cache-Control', () => {
  it('is no-store when the route sets none', async () => {
    const response = await fetch(`${base}/plain`);
    expect(await response.json()).toEqual({ ok: true });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('is the route’s own when it sets one', async () => {
    const response = await fetch(`${base}/cached`);
    expect(await response.json()).toEqual({ ok: true });
    expect(response.headers.get('cache-control')).toBe('public, max-age=60');
  });
});

describe('Fastify’s own refusals in the one body', () => {
  it('a body that does not match its Content-Length is 400 bad_request, not a media type problem', async () => {
    const response = await fetch(`${base}/shrunk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ padding: 'x'.repeat(100) }),
    });
    await expectError(response, 400, 'bad_request');
  });

  it('a text/plain body is 415 unsupported_media_type', async () => {
    const response = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{"a":1}',
    });
    await expectError(response, 415, 'unsupported_media_type');
  });

  it('a JSON body still reaches the route', async () => {
    const response = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(await response.json()).toEqual({ body: { a: 1 } });
  });

  it('a URL that cannot be decoded is 400 bad_request with the x-request-id', async () => {
    const response = await fetch(`${base}/boom/%E0%A4%A`, { headers: { 'x-request-id': 'bad-url-2' } });
    expect((await expectError(response, 400, 'bad_request')).requestId).toBe('bad-url-2');
  });
});
