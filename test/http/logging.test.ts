// Log lines (spec part 2 §6.4): the base fields, requestId on every api line, tenantId and principalKind
// after authentication, and the censored keys.
import os from 'node:os';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CENSORED_KEYS, createLogger } from '../../src/logging.ts';
import { PLATFORM_VERSION } from '../../src/version.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { expectError, linesOf } from './expect.ts';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: createLogger({ service: 'log-test', level, env: 'staging', destination }) };
}

describe('createLogger', () => {
  it('writes JSON lines with service, version, env, pid, hostname, a level name and an ISO time', () => {
    const { lines, logger } = capture();
    logger.info({ answer: 42 }, 'hello');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      service: 'log-test',
      version: PLATFORM_VERSION,
      env: 'staging',
      pid: process.pid,
      hostname: os.hostname(),
      level: 'info',
      msg: 'hello',
      answer: 42,
    });
    expect(new Date(String(lines[0]?.time)).toISOString()).toBe(lines[0]?.time);
  });

  it('honours the level', () => {
    const { lines, logger } = capture('warn');
    logger.info('dropped');
    logger.warn('kept');
    expect(lines.map((line) => line.msg)).toEqual(['kept']);
  });

  it('censors every listed key at the top level', () => {
    expect([...CENSORED_KEYS].sort()).toEqual(
      [
        'authorization',
        'token',
        'secrets',
        'apiKey',
        'secretKey',
        'webhookSecret',
        'password',
        'submissionUrl',
        'link',
      ].sort(),
    );
    const { lines, logger } = capture();
    logger.info(
      { ...Object.fromEntries(CENSORED_KEYS.map((key) => [key, `${key}-value`])), visible: 'ok' },
      'top',
    );
    const line = lines[0] ?? {};
    for (const key of CENSORED_KEYS) expect(line[key], key).toBe('[redacted]');
    expect(line.visible).toBe('ok');
    expect(JSON.stringify(line)).not.toContain('-value');
  });

  it('censors every listed key one level down, under any parent', () => {
    const { lines, logger } = capture();
    const nested = Object.fromEntries(CENSORED_KEYS.map((key) => [key, `${key}-value`]));
    logger.info({ install: { ...nested, name: 'kyc' }, body: { token: 'tok-value', keep: 1 } }, 'nested');
    const line = lines[0] as { install: Record<string, unknown>; body: Record<string, unknown> };
    for (const key of CENSORED_KEYS) expect(line.install[key], key).toBe('[redacted]');
    expect(line.install.name).toBe('kyc');
    expect(line.body).toEqual({ token: '[redacted]', keep: 1 });
    expect(JSON.stringify(line)).not.toContain('-value');
  });

  it('censors authorization under req.headers and headers', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        req: { headers: { authorization: 'Bearer abc', accept: 'json' } },
        headers: { authorization: 'Bearer def' },
      },
      'headers',
    );
    expect(lines[0]).toMatchObject({
      req: { headers: { authorization: '[redacted]', accept: 'json' } },
      headers: { authorization: '[redacted]' },
    });
  });

  it('censors the keys in child logger bindings too', () => {
    const { lines, logger } = capture();
    logger
      .child({ token: 'child-secret', install: { password: 'child-password' }, tenantId: 't1' })
      .info('child');
    expect(lines[0]).toMatchObject({
      token: '[redacted]',
      install: { password: '[redacted]' },
      tenantId: 't1',
    });
    expect(JSON.stringify(lines[0])).not.toContain('child-');
  });

  it('leaves other keys alone, including ones that merely contain a censored word', () => {
    const { lines, logger } = capture();
    logger.info({ tokenCount: 3, linked: true, passwordPolicy: 'strong', meta: { links: 2 } }, 'similar');
    expect(lines[0]).toMatchObject({
      tokenCount: 3,
      linked: true,
      passwordPolicy: 'strong',
      meta: { links: 2 },
    });
  });
});

describe('api log lines', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => platform?.close());

  it('every line has the base fields; every request line has a requestId', async () => {
    await (await platform.fetch('/tenants/me')).text();
    await (await platform.fetch('/health', { token: null })).text();
    await expectError(await platform.fetch('/tenants/me', { token: null }), 401, 'unauthorized');
    await expectError(await platform.fetch('/nowhere'), 404, 'not_found');
    await (await platform.fetch('/tenants/%zz')).text();
    const last = await platform.fetch('/health', { token: null, headers: { 'x-request-id': 'last-1' } });
    await last.text();
    await linesOf(platform.logs, 'last-1');
    expect(platform.logs.length).toBeGreaterThan(5);
    for (const line of platform.logs) {
      expect(line).toMatchObject({
        service: 'apps-platform-test',
        version: PLATFORM_VERSION,
        env: 'test',
        pid: process.pid,
        hostname: os.hostname(),
        level: expect.any(String),
        time: expect.any(String),
      });
      if ('method' in line || 'statusCode' in line)
        expect(line.requestId, JSON.stringify(line)).toEqual(expect.any(String));
    }
  });

  it('an authenticated request’s line has tenantId and principalKind', async () => {
    const tenantId = await platform.tenantId('acme');
    for (const kind of ['human', 'machine', 'applicant'] as const) {
      const response = await platform.fetch('/tenants/me', {
        token: await platform.token({ kind }),
        headers: { 'x-request-id': `kind-${kind}` },
      });
      await response.text();
      const [line, ...more] = await linesOf(platform.logs, `kind-${kind}`);
      expect(more).toEqual([]);
      expect(line).toMatchObject({
        requestId: `kind-${kind}`,
        tenantId,
        principalKind: kind,
        method: 'GET',
        route: '/tenants/me',
        path: '/tenants/me',
        statusCode: 200,
        msg: 'request completed',
      });
      expect(line).not.toHaveProperty('code');
    }
  });

  it('a line before authentication has neither', async () => {
    const response = await platform.fetch('/health', {
      token: null,
      headers: { 'x-request-id': 'public-1' },
    });
    await response.text();
    const [line] = await linesOf(platform.logs, 'public-1');
    expect(line).toMatchObject({ route: '/health', statusCode: 200 });
    expect(line).not.toHaveProperty('tenantId');
    expect(line).not.toHaveProperty('principalKind');
  });

  it('the path is logged without its query string', async () => {
    const response = await platform.fetch('/audit-events?action=tenant.&limit=5', {
      headers: { 'x-request-id': 'query-1' },
    });
    await response.text();
    const [line] = await linesOf(platform.logs, 'query-1');
    expect(line).toMatchObject({ path: '/audit-events', route: '/audit-events' });
  });

  it('no line carries a bearer token', async () => {
    const token = await platform.token({ user: 'zed' });
    const response = await platform.fetch('/tenants/me', { token, headers: { 'x-request-id': 'token-1' } });
    await response.text();
    await linesOf(platform.logs, 'token-1');
    const signature = token.split('.')[2] ?? token;
    expect(JSON.stringify(platform.logs)).not.toContain(signature);
  });
});
