// The console's routes on the api's own server (src/http/server.ts, with authentication and the OpenAPI
// description on): a build served with its headers, deep links answered with the page, files outside the
// build never, no build a 503 saying how to make one, and none of it in /openapi.json.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenVerifier } from '../../src/auth/tokens.ts';
import type { ConsoleOidcSettings } from '../../src/config.ts';
import { consoleRoutes, NOT_BUILT } from '../../src/console/routes.ts';
import { CONSOLE_CSP, consoleCsp, IMMUTABLE } from '../../src/console/serving-rules.ts';
import { createServer } from '../../src/http/server.ts';

const refuseEveryToken: TokenVerifier = {
  verify: async () => {
    throw new Error('no token is valid here');
  },
};

/** The OpenID Connect sign-in as CONSOLE_OIDC_CLIENT_ID with AUTH_ISSUER configure it. */
const OIDC: ConsoleOidcSettings = {
  issuer: 'https://login.example.com:8443/realms/acme',
  clientId: 'platform-console',
  scope: 'openid platform',
};

async function serverFor(distDir: string, oidc: ConsoleOidcSettings | null = null): Promise<FastifyInstance> {
  const app = (await createServer({
    logger: pino({ level: 'silent' }),
    openApi: true,
    rateLimitPerMinute: 1000,
    auth: { verifier: refuseEveryToken, findTenant: async () => null },
  })) as unknown as FastifyInstance;
  await app.register(consoleRoutes(distDir, oidc));
  await app.ready();
  return app;
}

const temp: string[] = [];
let built: FastifyInstance;
let unbuilt: FastifyInstance;
let signingIn: FastifyInstance;
const INDEX =
  '<!doctype html><title>console</title><script type="module" src="/console/assets/index-AbC123.js"></script>';

beforeAll(async () => {
  const dist = await fs.mkdtemp(path.join(os.tmpdir(), 'console-dist-'));
  const empty = await fs.mkdtemp(path.join(os.tmpdir(), 'console-unbuilt-'));
  temp.push(dist, empty);
  await fs.mkdir(path.join(dist, 'assets'));
  await fs.writeFile(path.join(dist, 'index.html'), INDEX);
  await fs.writeFile(path.join(dist, 'assets', 'index-AbC123.js'), 'console.log("console")');
  await fs.writeFile(path.join(dist, 'robots.txt'), 'User-agent: *\nDisallow: /\n');
  // A file beside the build that no console path may reach.
  await fs.writeFile(path.join(path.dirname(dist), `${path.basename(dist)}-secret.txt`), 'secret');
  built = await serverFor(dist);
  unbuilt = await serverFor(empty);
  signingIn = await serverFor(dist, OIDC);
});

afterAll(async () => {
  await built?.close();
  await unbuilt?.close();
  await signingIn?.close();
  for (const dir of temp) {
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rm(`${dir}-secret.txt`, { force: true });
  }
});

const expectConsoleHeaders = (headers: Record<string, unknown>) => {
  expect(headers['content-security-policy']).toBe(CONSOLE_CSP);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
};

describe('the console’s routes', () => {
  it('answer a deep link, with or without a query, with the page, revalidated each time, without a token', async () => {
    for (const url of [
      '/console/',
      '/console/runs/0190d5e2',
      '/console/apps/installs/kyc/changes/1?x=1&y=2',
    ]) {
      const answer = await built.inject({ method: 'GET', url });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.body).toBe(INDEX);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(answer.headers['cache-control']).toBe('no-cache');
      expectConsoleHeaders(answer.headers);
    }
  });

  it('serve a hashed file cached for a year, another file revalidated, and a missing hashed file as 404', async () => {
    const script = await built.inject({ method: 'GET', url: '/console/assets/index-AbC123.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.headers['cache-control']).toBe(IMMUTABLE);
    expectConsoleHeaders(script.headers);
    const robots = await built.inject({ method: 'GET', url: '/console/robots.txt' });
    expect(robots.headers['cache-control']).toBe('no-cache');
    const stale = await built.inject({ method: 'GET', url: '/console/assets/index-Old999.js' });
    expect(stale.statusCode).toBe(404);
    expectConsoleHeaders(stale.headers);
  });

  it('never reach outside the build', async () => {
    for (const url of [
      `/console/..%2F${path.basename(temp[0] as string)}-secret.txt`,
      '/console/%2e%2e/%2e%2e/etc/passwd',
      '/console/assets/..%2F..%2Fpackage.json',
    ]) {
      const answer = await built.inject({ method: 'GET', url });
      expect(answer.statusCode, url).toBe(404);
      expect(answer.body).not.toContain('secret');
    }
  });

  it('send /console to /console/, keeping the query', async () => {
    const answer = await built.inject({ method: 'GET', url: '/console?next=1' });
    expect(answer.statusCode).toBe(302);
    expect(answer.headers.location).toBe('/console/?next=1');
  });

  it('say how to build the console when it is not built', async () => {
    const answer = await unbuilt.inject({ method: 'GET', url: '/console/runs/1' });
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['content-type']).toMatch(/^text\/plain/);
    expect(answer.body).toBe(NOT_BUILT);
    expect(answer.body).toContain('npm run build:console');
  });

  it('are not part of the API’s description', async () => {
    const answer = await built.inject({ method: 'GET', url: '/openapi.json' });
    const paths = Object.keys(JSON.parse(answer.body).paths ?? {});
    expect(paths.filter((p) => p.startsWith('/console'))).toEqual([]);
  });

  it('tell the console, without a token and afresh each time, that no identity provider signs in here', async () => {
    const answer = await built.inject({ method: 'GET', url: '/console/config.json' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.headers['cache-control']).toBe('no-cache');
    expect(JSON.parse(answer.body)).toEqual({ oidc: null });
    expectConsoleHeaders(answer.headers);
  });
});

describe('the console’s routes with the OpenID Connect sign-in on', () => {
  it('tell the console the identity provider and its client', async () => {
    const answer = await signingIn.inject({ method: 'GET', url: '/console/config.json' });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-cache');
    expect(JSON.parse(answer.body)).toEqual({ oidc: OIDC });
  });

  it('let the browser fetch from the provider’s origin, and nothing else changes in the policy', async () => {
    const policy = consoleCsp(['https://login.example.com:8443']);
    expect(policy).toBe(
      CONSOLE_CSP.replace("connect-src 'self'", "connect-src 'self' https://login.example.com:8443"),
    );
    for (const url of [
      '/console/',
      '/console/runs/1',
      '/console/assets/index-AbC123.js',
      '/console/config.json',
    ]) {
      const answer = await signingIn.inject({ method: 'GET', url });
      expect(answer.headers['content-security-policy'], url).toBe(policy);
      expect(answer.headers['content-security-policy'], url).not.toMatch(/unsafe-|realms/);
    }
  });
});
