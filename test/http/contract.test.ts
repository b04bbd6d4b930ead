// The validator every answer of platform.fetch goes through (test/support/contract.ts): it holds answers to
// /openapi.json strictly, and the routes that document their answers keep it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/openapi-document.ts';
import { type Answer, type Contract, compileContract, type OpenApiDocument } from '../support/contract.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

const answer = (overrides: Partial<Answer>): Answer => ({
  method: 'GET',
  pathname: '/health',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  text: JSON.stringify({ status: 'ok', version: '1.0.0' }),
  ...overrides,
});
const errorText = JSON.stringify({ error: { code: 'not_found', message: 'no route', requestId: 'r-1' } });

describe('the contract compiled from the description', () => {
  let contract: Contract;
  beforeAll(async () => {
    contract = compileContract((await openApiDocument()) as OpenApiDocument);
  });

  it('passes an answer with a documented status and a body of its schema', () => {
    expect(contract.check(answer({}))).toEqual([]);
  });

  it('catches an undocumented status', () => {
    expect(contract.check(answer({ status: 202 }))).toEqual([
      'GET /health answered 202: GET /health documents only 200, 400, 500, 503',
    ]);
  });

  it('catches a body that breaks its schema', () => {
    const problems = contract.check(answer({ text: JSON.stringify({ status: 'fine', version: 1 }) }));
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^GET \/health answered 200 \(\/health\): body\/status must be equal to one of/,
        ),
        expect.stringMatching(/body\/version must be string/),
      ]),
    );
  });

  it('catches an error answer that is not the error body, through the shared component', () => {
    const problems = contract.check(
      answer({ pathname: '/audit-events', status: 401, text: JSON.stringify({ message: 'no' }) }),
    );
    expect(problems[0]).toMatch(
      /^GET \/audit-events answered 401 \(\/audit-events\): body must have required/,
    );
    const kept = contract.check(answer({ pathname: '/audit-events', status: 401, text: errorText }));
    expect(kept).toEqual([]);
  });

  it('catches a body where the operation documents none, and a wrong content type', () => {
    const read = { method: 'POST', pathname: '/notifications/42/read', status: 204 };
    expect(contract.check(answer({ ...read, contentType: null, text: '' }))).toEqual([]);
    expect(contract.check(answer({ ...read, text: '{}' }))).toEqual([
      'POST /notifications/42/read answered 204: documents no body, got one',
    ]);
    expect(contract.check(answer({ contentType: 'text/plain' }))[0]).toMatch(
      /content type text\/plain is not application\/json/,
    );
  });

  it('holds answers to undocumented paths and methods to the error body only', () => {
    expect(contract.check(answer({ pathname: '/nowhere', status: 404, text: errorText }))).toEqual([]);
    expect(contract.check(answer({ method: 'DELETE', status: 405, text: errorText }))).toEqual([]);
    expect(contract.check(answer({ pathname: '/nowhere', status: 404, text: '{}' }))[0]).toMatch(
      /^GET \/nowhere answered 404: body must have required property 'error'/,
    );
    expect(contract.check(answer({ pathname: '/nowhere', status: 200 }))).toEqual([
      'GET /nowhere answered 200: no operation describes it',
    ]);
  });

  it('prefers a literal segment to a parameter', () => {
    const problems = contract.check(
      answer({ pathname: '/app-installs/metering', status: 299, text: errorText }),
    );
    expect(problems[0]).toMatch(/GET \/app-installs\/metering documents only/);
  });
});

describe('answers through platform.fetch', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(async () => platform?.close());

  it('keep the description on the routes that document their answers', async () => {
    expect((await platform.fetch('/health', { token: null })).status).toBe(200);
    expect((await platform.fetch('/health/ready', { token: null })).status).toBe(200);
    expect((await platform.fetch('/audit-events?limit=5')).status).toBe(200);
    expect((await platform.fetch('/audit-events?limit=0')).status).toBe(400);
    expect((await platform.fetch('/audit-events', { token: null })).status).toBe(401);
    const notifications = await platform.fetch('/notifications');
    expect(notifications.status).toBe(200);
    expect(await notifications.json()).toMatchObject({ items: [], total: 0 });
    const nowhere = await platform.fetch('/nowhere');
    expect(nowhere.status).toBe(404);
    expect((await nowhere.json()).error.code).toBe('not_found');
  });
});
