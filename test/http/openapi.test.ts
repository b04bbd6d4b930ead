// The API description (GET /openapi.json) and its reference page (GET /docs), both public.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => platform?.close());

describe('GET /openapi.json', () => {
  // biome-ignore lint/suspicious/noExplicitAny: the document is checked by assertions
  let doc: any;
  beforeAll(async () => {
    const response = await platform.fetch('/openapi.json', { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    doc = await response.json();
  });

  it('is OpenAPI 3.1 at version 0.0.0', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '0.0.0' });
  });

  it('declares bearer JWT security for every route by default', () => {
    const schemes = doc.components.securitySchemes as Record<
      string,
      { type: string; scheme: string; bearerFormat: string }
    >;
    const bearer = Object.entries(schemes).find(
      ([, scheme]) => scheme.type === 'http' && scheme.scheme === 'bearer',
    );
    expect(bearer).toBeDefined();
    const [name, scheme] = bearer as [string, { bearerFormat: string }];
    expect(scheme.bearerFormat).toBe('JWT');
    expect(doc.security).toEqual([{ [name]: [] }]);
  });

  it('describes the foundation routes', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/tenants/me', '/tenants/me/settings', '/audit-events', '/health']),
    );
    expect(doc.paths['/tenants/me/settings']).toHaveProperty('get');
    expect(doc.paths['/tenants/me/settings']).toHaveProperty('put');
    expect(doc.paths['/tenants/me/settings'].put.requestBody).toBeDefined();
    const parameters = (doc.paths['/audit-events'].get.parameters as { name: string; in: string }[]).map(
      (p) => `${p.in}:${p.name}`,
    );
    expect(parameters).toEqual(expect.arrayContaining(['query:limit', 'query:offset']));
  });

  it('marks public routes as needing no token and leaves the others to the default', () => {
    expect(doc.paths['/health'].get.security).toEqual([]);
    expect(doc.paths['/tenants/me'].get.security).toBeUndefined();
  });

  it('does not describe itself or the reference page', () => {
    expect(
      Object.keys(doc.paths).filter((path) => path.startsWith('/docs') || path === '/openapi.json'),
    ).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('answers the reference page without a token', async () => {
    for (const path of ['/docs', '/docs/']) {
      const response = await platform.fetch(path, { token: null });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type'), path).toMatch(/^text\/html/);
      const html = await response.text();
      expect(html).toMatch(/<html/i);
      expect(html.toLowerCase()).toContain('swagger');
    }
  });

  it('serves its assets without a token', async () => {
    const response = await platform.fetch('/docs/static/swagger-ui-bundle.js', { token: null });
    expect(response.status).toBe(200);
    expect((await response.text()).length).toBeGreaterThan(0);
  });
});
