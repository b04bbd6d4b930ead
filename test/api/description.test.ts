// What /openapi.json says of the catalogue, tenant, audit, notification, health and call routes: each
// operation named and summarised, the statuses it answers (201, 202, 204 where it does), the error
// body for its own refusals, the upload's application/wasm body, and examples for the main bodies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

interface Operation {
  operationId?: string;
  summary?: string;
  requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown; example?: unknown }> }>;
}

let platform: TestPlatform;
let paths: Record<string, Record<string, Operation>>;
beforeAll(async () => {
  platform = await startTestPlatform();
  paths = (await (await platform.fetch('/openapi.json', { token: null })).json()).paths;
});
afterAll(async () => platform?.close());

const operation = (method: string, path: string) => paths[path]?.[method] as Operation;
const statuses = (method: string, path: string) => Object.keys(operation(method, path).responses).sort();

const ROUTES: [string, string, string][] = [
  ['get', '/health', 'getHealth'],
  ['get', '/health/ready', 'getReadiness'],
  ['get', '/tenants/me', 'getTenant'],
  ['get', '/tenants/me/settings', 'getTenantSettings'],
  ['put', '/tenants/me/settings', 'replaceTenantSettings'],
  ['get', '/audit-events', 'listAuditEvents'],
  ['get', '/activity', 'listActivity'],
  ['get', '/attention', 'getAttention'],
  ['get', '/notifications', 'listNotifications'],
  ['post', '/notifications/{id}/read', 'markNotificationRead'],
  ['post', '/apps/uploads', 'uploadAppVersion'],
  ['get', '/apps', 'listApps'],
  ['get', '/apps/approvals', 'listAppApprovals'],
  ['get', '/apps/{name}', 'getApp'],
  ['get', '/apps/{name}/versions', 'listAppVersions'],
  ['post', '/apps/{name}/versions/{id}/publish', 'publishAppVersion'],
  ['post', '/apps/{name}/versions/{id}/approve', 'approveAppVersion'],
  ['post', '/apps/{name}/versions/{id}/reject', 'rejectAppVersion'],
  ['delete', '/apps/{name}/versions/{id}', 'withdrawAppVersion'],
  ['get', '/app-installs/metering', 'getInstallMetering'],
  ['get', '/apps/metering', 'getMonthMetering'],
  ['get', '/apps/health', 'getAppsHealth'],
  ['post', '/app-installs/{install}/test', 'testInstall'],
  ['get', '/app-invocations', 'listInvocations'],
  ['get', '/app-invocations/{id}', 'getInvocation'],
  ['get', '/app-callbacks', 'listCallbacks'],
];

describe('the description of the catalogue, tenant, audit, notification, health and call routes', () => {
  it('names and summarises every operation, each with its 2xx answer schema', () => {
    for (const [method, path, id] of ROUTES) {
      const op = operation(method, path);
      expect(op?.operationId, `${method} ${path}`).toBe(id);
      expect(op.summary, `${method} ${path}`).toEqual(expect.any(String));
      for (const [status, response] of Object.entries(op.responses).filter(([s]) => /^2\d\d$/.test(s))) {
        if (status === '204') continue;
        expect(response.content?.['application/json']?.schema, `${method} ${path} ${status}`).toBeDefined();
      }
    }
  });

  it('documents the statuses the catalogue answers: 201 upload, 202 held publish and approval', () => {
    expect(statuses('post', '/apps/uploads')).toEqual(expect.arrayContaining(['201', '409', '502']));
    expect(statuses('post', '/apps/uploads')).not.toContain('200');
    expect(statuses('post', '/apps/{name}/versions/{id}/publish')).toEqual(
      expect.arrayContaining(['200', '202', '404', '409']),
    );
    expect(statuses('post', '/apps/{name}/versions/{id}/approve')).toEqual(
      expect.arrayContaining(['200', '202', '404', '409']),
    );
    expect(statuses('post', '/apps/{name}/versions/{id}/reject')).not.toContain('202');
    expect(statuses('get', '/apps/{name}')).toContain('404');
    expect(statuses('post', '/notifications/{id}/read')).toEqual(expect.arrayContaining(['204', '404']));
    expect(statuses('post', '/app-installs/{install}/test')).toEqual(
      expect.arrayContaining(['200', '404', '409']),
    );
    expect(statuses('get', '/app-invocations')).toEqual(expect.arrayContaining(['200', '400', '403']));
    expect(statuses('get', '/app-invocations/{id}')).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(statuses('get', '/app-callbacks')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    // The month report beside GET /apps/{name}: its own operation; a bad month, no token, no apps:read.
    expect(statuses('get', '/apps/metering')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
    expect(statuses('get', '/apps/health')).toEqual(['200', '400', '401', '403', '429', '500', '503']);
  });

  it('gives a route’s own refusals the shared error body', () => {
    const conflict = operation('post', '/apps/uploads').responses['409']?.content?.['application/json'];
    expect(JSON.stringify(conflict?.schema)).toMatch(/ErrorBody|#\/components\/schemas\//);
  });

  it('describes the upload body as application/wasm bytes, with an example answer', () => {
    const upload = operation('post', '/apps/uploads');
    expect(Object.keys(upload.requestBody?.content ?? {})).toEqual(['application/wasm']);
    expect(upload.requestBody?.content['application/wasm']?.schema).toMatchObject({
      type: 'string',
      format: 'binary',
    });
    const answer = upload.responses['201']?.content?.['application/json'];
    expect(answer?.example).toMatchObject({ status: 'uploaded', review: null });
  });

  it('requires only what a body needs, with examples for the test call and a decision', () => {
    const test = operation('post', '/app-installs/{install}/test').requestBody?.content['application/json'];
    expect(test?.schema.required).toEqual(['action']);
    expect(test?.example).toMatchObject({ action: expect.any(String) });
    const decision = operation('post', '/apps/{name}/versions/{id}/approve').requestBody?.content[
      'application/json'
    ];
    expect(decision?.schema.required).toBeUndefined();
    expect(decision?.example).toEqual({ comment: expect.any(String) });
  });

  it('marks the query switches with defaults (open, unread) as optional', () => {
    const parameter = (path: string, name: string) =>
      (
        (operation('get', path) as Operation & { parameters: { name: string; required?: boolean }[] })
          .parameters ?? []
      ).find((p) => p.name === name);
    expect(parameter('/apps/approvals', 'open')?.required).not.toBe(true);
    expect(parameter('/notifications', 'unread')?.required).not.toBe(true);
  });

  it('documents each query parameter GET /notifications takes, in words', () => {
    const parameters = (
      operation('get', '/notifications') as Operation & {
        parameters: { name: string; in: string; description?: string; schema: { type: string } }[];
      }
    ).parameters;
    const described = parameters.map((p) => [p.in, p.name, p.schema.type, p.description]);
    expect(described).toEqual([
      ['query', 'limit', 'integer', 'Items per page, 1 to 100 (default 50)'],
      ['query', 'offset', 'integer', 'Items to skip, 0 to 100,000 (default 0)'],
      [
        'query',
        'unread',
        'boolean',
        'true: only the notifications the current principal has not marked read',
      ],
    ]);
  });
});
