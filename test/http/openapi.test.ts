// The API description (GET /openapi.json) and its reference page (GET /docs), both public.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/openapi-document.ts';
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

describe('the description of every operation', () => {
  type Operation = {
    operationId?: string;
    summary?: string;
    parameters?: { in: string; name: string; required?: boolean; schema?: { default?: unknown } }[];
    requestBody?: { required?: boolean; content: Record<string, unknown> };
    responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
    security?: unknown[];
  };
  // biome-ignore lint/suspicious/noExplicitAny: the document is checked by assertions
  let doc: any;
  let operations: [string, Operation][];
  beforeAll(async () => {
    doc = await openApiDocument();
    operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(
      ([path, methods]) =>
        Object.entries(methods).map(
          ([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation],
        ),
    );
  });
  const errorRef = { $ref: '#/components/schemas/ErrorBody' };

  it('names the error body once, as a component', () => {
    expect(doc.components.schemas.ErrorBody).toMatchObject({ type: 'object', required: ['error'] });
    expect(JSON.stringify(doc)).not.toMatch(/"def-\d+"|"\$ref":"ErrorBody"/);
  });

  it('adds the generic error statuses each route can answer, with the error body', () => {
    const statuses = (name: string) =>
      Object.keys(operations.find(([key]) => key === name)?.[1].responses ?? {});
    expect(statuses('GET /health')).toEqual(['200', '400', '500', '503']);
    // Every route a token reaches answers 403 to an applicant's token off its own routes.
    expect(statuses('GET /tenants/me')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(statuses('GET /audit-events')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(statuses('PUT /tenants/me/settings')).toEqual(
      expect.arrayContaining(['400', '401', '403', '413', '415', '429', '500', '503']),
    );
    for (const [name, op] of operations) {
      for (const status of ['500', '503']) expect(op.responses[status], `${name} ${status}`).toBeDefined();
      const errorStatuses = Object.keys(op.responses).filter((s) => Number(s) >= 400);
      for (const status of errorStatuses) {
        if (name === 'GET /health/ready' && status === '503') continue; // its own body: the health answer
        expect(op.responses[status]?.content?.['application/json']?.schema, `${name} ${status}`).toEqual(
          errorRef,
        );
      }
    }
  });

  it('keeps a status the route declares itself', () => {
    const ready = doc.paths['/health/ready'].get.responses['503'].content['application/json'].schema;
    expect(ready).toMatchObject({ properties: { status: expect.any(Object), version: expect.any(Object) } });
  });

  it('marks no query parameter with a default as required', () => {
    const defaulted = operations.flatMap(([name, op]) =>
      (op.parameters ?? [])
        .filter((p) => p.in === 'query' && p.schema?.default !== undefined)
        .map((p) => ({ parameter: `${name} ${p.name}`, required: p.required })),
    );
    expect(defaulted.length).toBeGreaterThan(0);
    for (const { parameter, required } of defaulted) expect(required, parameter).toBe(false);
  });

  it('marks a body optional exactly where the route takes none as {} (the decisions), required elsewhere', () => {
    const bodies = operations
      .filter(([, op]) => op.requestBody)
      .map(([name, op]) => [name, op.requestBody?.required] as const);
    const optional = bodies.filter(([, required]) => !required).map(([name]) => name);
    expect(optional.sort()).toEqual([
      'POST /app-installs/{install}/changes/{id}/approve',
      'POST /app-installs/{install}/changes/{id}/reject',
      'POST /apps/{name}/versions/{id}/approve',
      'POST /apps/{name}/versions/{id}/reject',
      'POST /definition-approvals/{id}/approve',
      'POST /definition-approvals/{id}/reject',
      'POST /definition-approvals/{id}/withdraw',
    ]);
    expect(bodies.length).toBeGreaterThan(optional.length);
  });

  it('describes the upload body as application/wasm', () => {
    const upload = doc.paths['/apps/uploads'].post;
    expect(Object.keys(upload.requestBody.content)).toEqual(['application/wasm']);
    expect(upload.requestBody.content['application/wasm'].schema).toMatchObject({
      type: 'string',
      format: 'binary',
    });
  });

  // Fails until every route's schema carries both (the route files' own work): not to be relaxed.
  it('gives every operation an operationId (lowerCamelCase, unique) and a summary', () => {
    const missing = operations
      .filter(([, op]) => !op.operationId || !/^[a-z][A-Za-z0-9]*$/.test(op.operationId) || !op.summary)
      .map(
        ([name, op]) =>
          `${name}: ${op.operationId ?? 'no operationId'}, ${op.summary ? 'summary' : 'no summary'}`,
      );
    expect(missing).toEqual([]);
    const ids = operations.map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
