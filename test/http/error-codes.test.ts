// The one catalogue of error codes (src/http/error-codes.ts): docs/errors.md shows exactly its rows, a
// route declares the codes it answers (errors(...)), the description names them per status, and a code a
// route answers without declaring it fails the request under the tests.
import { readFileSync } from 'node:fs';
import pino from 'pino';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../scripts/openapi-document.ts';
import { type ApiCode, ERROR_CODES, RUNNER_FAILURES } from '../../src/http/error-codes.ts';
import { ApiError } from '../../src/http/errors.ts';
import { ERROR_CODES_KEY, errors } from '../../src/http/responses.ts';
import { createServer } from '../../src/http/server.ts';

describe('docs/errors.md', () => {
  const rows = new Map(
    [
      ...readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8').matchAll(
        /^\| `([A-Za-z_]+)` \| (\d{3}|—) \|/gm,
      ),
    ].map((match) => [match[1] as string, match[2] === '—' ? null : Number(match[2])]),
  );

  it('has a row for every code of the catalogue, with its status', () => {
    const expected = Object.entries(ERROR_CODES).map(([code, entry]) => [code, entry.status]);
    expect([...rows].sort()).toEqual(expected.sort());
  });
});

describe('the runner failures', () => {
  it('are the catalogue’s runner codes with the catalogue’s statuses', () => {
    expect(RUNNER_FAILURES).toEqual({
      unauthorized: 401,
      bad_request: 400,
      module_not_found: 404,
      invalid_module: 422,
      missing_export: 422,
      timeout: 504,
      trapped: 502,
      bad_output: 502,
      busy: 429,
      module_unavailable: 503,
      internal: 500,
    });
  });
});

describe('errors(...codes)', () => {
  it('groups the codes by their status and lists them', () => {
    const declared = errors('unknown_install', 'not_found', 'install_in_use', 'runner_busy') as Record<
      number,
      Record<string, unknown>
    >;
    expect(Object.keys(declared)).toEqual(['404', '409', '502']);
    expect(declared[404]).toMatchObject({
      $ref: 'ErrorBody',
      [ERROR_CODES_KEY]: ['unknown_install', 'not_found'],
    });
    expect(declared[404]?.description).toBe(
      `unknown_install: ${ERROR_CODES.unknown_install.meaning}; not_found: ${ERROR_CODES.not_found.meaning}`,
    );
    expect(declared[502]).toMatchObject({ [ERROR_CODES_KEY]: ['runner_busy'] });
  });
});

describe('a route answering a code', () => {
  const app = createServer({ logger: pino({ level: 'silent' }) });
  const route = (code: ApiCode) => async () => {
    throw new ApiError(code, `answered ${code}`);
  };
  beforeAll(async () => {
    const server = await app;
    const schema = { response: { 200: Type.Object({}), ...errors('unknown_install', 'install_in_use') } };
    server.get('/declared/unknown', { config: { public: true }, schema }, route('unknown_install'));
    server.get('/declared/conflict', { config: { public: true }, schema }, route('conflict'));
    server.get('/declared/generic', { config: { public: true }, schema }, route('rate_limited'));
    server.get('/undeclared', { config: { public: true } }, route('app_blocked'));
  });
  afterAll(async () => (await app).close());

  it.each([
    ['it declares', '/declared/unknown', 404, 'unknown_install'],
    ['every route may answer', '/declared/generic', 429, 'rate_limited'],
  ])('answers a code %s as thrown', async (_name, url, status, code) => {
    const response = await (await app).inject({ url });
    expect(response.statusCode).toBe(status);
    expect(response.json().error).toMatchObject({ code, message: `answered ${code}` });
  });

  it.each([
    ['at a status it declares others for', '/declared/conflict', 'conflict', 409],
    ['without a response schema', '/undeclared', 'app_blocked', 409],
  ])('answers 500 naming an undeclared code %s', async (_name, url, code, status) => {
    const response = await (await app).inject({ url });
    expect(response.statusCode).toBe(500);
    expect(response.json().error).toMatchObject({
      code: 'internal',
      message: `the route GET ${url} does not declare ${code} at ${status}`,
    });
  });
});

describe('the description', () => {
  // biome-ignore lint/suspicious/noExplicitAny: the document is checked by assertions
  let doc: any;
  beforeAll(async () => {
    doc = await openApiDocument();
  });

  it('names each operation’s own codes at their statuses', () => {
    const rename = doc.paths['/app-installs/{install}/rename'].post.responses;
    expect(rename['404'].description).toBe(`unknown_install: ${ERROR_CODES.unknown_install.meaning}`);
    expect(rename['409'].description).toContain('install_name_taken: ');
    expect(rename['409'].description).toContain('alias_limit_reached: ');
    expect(rename['409'].description).toContain('install_in_use: ');
  });
});
