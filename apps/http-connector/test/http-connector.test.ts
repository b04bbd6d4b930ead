// http-connector's request action through the platform's real host (the loader) against a vendor
// double on 127.0.0.1: authentication, variables and their step places, error answers, the config
// schema and the conformance check. Webhooks: webhooks.test.ts.
import { describe, expect, it } from 'vitest';
import { checkConformance, type LoadedApp } from '../../../packages/app-testing/src/index.ts';
import { createSchemaAjv } from '../../../src/module/schemas.ts';
import conformanceSetup from './conformance.ts';
import {
  closedPort,
  connectorSuite,
  DIGEST_USER,
  errorAnswer,
  okOutput,
  startDroppingServer,
} from './support.ts';

const suite = connectorSuite();
const installs = suite.installs;
const sent = (i = 0) => suite.sent(i);

describe('request', () => {
  it('sends method, path, query, config and input headers and a JSON body; answers status, headers and body', async () => {
    const app = await installs.install({ headers: { Accept: 'application/json', 'X-Client': 'platform' } });
    const { answer } = await app.invoke('request', {
      method: 'post',
      path: '/echo/items',
      query: { q: 'a b&c=d', tag: ['x', 'y'], n: 3, on: true },
      headers: { 'X-Trace': 't-1', 'X-Client': 'step' },
      body: { name: 'Ada', tags: [1, 2] },
    });
    const out = okOutput(answer);
    expect(out.status).toBe(200);
    expect(out.headers['content-type']).toContain('application/json');
    expect(out.body).toMatchObject({ method: 'POST', path: '/echo/items' });
    expect(sent().query).toEqual({ q: 'a b&c=d', tag: 'y', n: '3', on: 'true' });
    expect(sent().headers).toMatchObject({
      accept: 'application/json',
      'x-client': 'step',
      'x-trace': 't-1',
      'content-type': 'application/json',
    });
    expect(JSON.parse(sent().body)).toEqual({ name: 'Ada', tags: [1, 2] });
  });

  it('answers a body that is not JSON as text, and sends a text body as it is', async () => {
    const app = await installs.install();
    expect(okOutput((await app.invoke('request', { method: 'GET', path: '/text' })).answer).body).toBe(
      'plain words',
    );
    const { answer } = await app.invoke('request', {
      method: 'PUT',
      path: '/echo/note',
      body: 'plain & simple',
    });
    expect(okOutput(answer).body.body).toBe('plain & simple');
    expect(sent(1).headers['content-type']).toBe('text/plain; charset=utf-8');
  });
});

describe('authentication', () => {
  it('bearer: the TOKEN secret goes through the host auth field and is redacted', async () => {
    const app = await installs.install({ auth: { type: 'bearer' } }, { TOKEN: 'tok-live-5f2a9c' });
    const { answer } = await app.invoke('request', { method: 'GET', path: '/echo/me' });
    expect(sent().headers.authorization).toBe('Bearer tok-live-5f2a9c');
    expect(JSON.stringify(answer)).not.toContain('tok-live-5f2a9c');
    expect(okOutput(answer).body.headers.authorization).toBe('[auth:bearer]');
  });

  it('basic: auth.username and the PASSWORD secret through the host auth field, redacted', async () => {
    const app = await installs.install(
      { auth: { type: 'basic', username: 'alice' } },
      { PASSWORD: 'pw-basic-3141' },
    );
    const { answer } = await app.invoke('request', { method: 'GET', path: '/echo/me' });
    const credential = Buffer.from('alice:pw-basic-3141').toString('base64');
    expect(sent().headers.authorization).toBe(`Basic ${credential}`);
    const text = JSON.stringify(answer);
    expect(text).not.toContain(credential);
    expect(text).not.toContain('pw-basic-3141');
    expect(okOutput(answer).body.headers.authorization).toBe('[auth:basic]');
  });

  it('digest: the host answers the challenge with the USERNAME and PASSWORD secrets, redacted', async () => {
    const app = await installs.install(
      { auth: { type: 'digest', username: '{{secret:USERNAME}}' } },
      { USERNAME: DIGEST_USER.username, PASSWORD: DIGEST_USER.password },
    );
    const { answer } = await app.invoke('request', {
      method: 'GET',
      path: '/digest/report',
      query: { id: '7' },
    });
    const out = okOutput(answer);
    expect(out.status).toBe(200);
    expect(suite.vendor.requests.map((r) => r.headers.authorization?.split(' ')[0])).toEqual([
      undefined,
      'Digest',
    ]);
    expect(sent(1).headers.authorization).toContain(`username="${DIGEST_USER.username}"`);
    expect(JSON.stringify(answer)).not.toContain(DIGEST_USER.password);
    expect(out.body.headers.authorization).toBe('[auth:digest]');
  });

  it('apiKey: the API_KEY secret after the prefix in the configured header, redacted', async () => {
    const app = await installs.install(
      { auth: { type: 'apiKey', header: 'X-Api-Key', prefix: 'Key ' } },
      { API_KEY: 'ak-9b8c7d6e' },
    );
    const { answer } = await app.invoke('request', { method: 'GET', path: '/echo/me' });
    expect(sent().headers['x-api-key']).toBe('Key ak-9b8c7d6e');
    expect(JSON.stringify(answer)).not.toContain('ak-9b8c7d6e');
    expect(okOutput(answer).body.headers['x-api-key']).toBe('Key [secret:API_KEY]');
  });
});

describe('variables', () => {
  it('fills {{secret:NAME}} and <<key>> of any variable in config header templates', async () => {
    const app = await installs.install(
      {
        headers: {
          'X-Signing': 'k={{secret:API_KEY}}',
          'X-Region': '<<region>>',
          'X-Account': 'a-<<ACCOUNT>>',
        },
        variables: [
          { key: 'region', value: 'eu-west' },
          { key: 'ACCOUNT', secret: true },
        ],
      },
      { API_KEY: 'ak-config-111', ACCOUNT: 'acct-secret-222' },
    );
    const { answer } = await app.invoke('request', { method: 'GET', path: '/echo' });
    expect(sent().headers).toMatchObject({
      'x-signing': 'k=ak-config-111',
      'x-region': 'eu-west',
      'x-account': 'a-acct-secret-222',
    });
    expect(okOutput(answer).body.headers).toMatchObject({
      'x-signing': 'k=[secret:API_KEY]',
      'x-account': 'a-[secret:ACCOUNT]',
    });
  });

  it('places variables in path, query, headers and body (secret ones where stepPlaces allow)', async () => {
    const app = await installs.install(
      {
        variables: [
          { key: 'ACCOUNT', secret: true, stepPlaces: ['path', 'query', 'headers', 'body'] },
          { key: 'region', value: 'eu west/1' },
        ],
      },
      { ACCOUNT: 'acc-7781' },
    );
    const { answer } = await app.invoke('request', {
      method: 'POST',
      path: '/echo/accounts/<<ACCOUNT>>/<<region>>',
      query: { account: '<<ACCOUNT>>', region: '<<region>>', other: '<<nobody>>' },
      headers: { 'X-Account': 'id <<ACCOUNT>>' },
      body: { account: '<<ACCOUNT>>', '<<region>>': ['in <<region>>'] },
    });
    expect(sent().path).toBe('/echo/accounts/acc-7781/eu%20west%2F1');
    expect(sent().query).toEqual({ account: 'acc-7781', region: 'eu west/1', other: '<<nobody>>' });
    expect(sent().headers['x-account']).toBe('id acc-7781');
    expect(JSON.parse(sent().body)).toEqual({ account: 'acc-7781', 'eu west/1': ['in eu west/1'] });
    expect(JSON.stringify(answer)).not.toContain('acc-7781');
    expect(okOutput(answer).body.headers['x-account']).toBe('id [secret:ACCOUNT]');

    await app.invoke('request', { method: 'POST', path: '/echo/form', body: 'account=<<ACCOUNT>>' });
    expect(sent(1).body).toBe('account=acc-7781');
  });

  it('refuses a secret variable in a place its stepPlaces do not list, sending nothing', async () => {
    const app = await installs.install(
      {
        variables: [
          { key: 'PIN', secret: true, stepPlaces: ['headers'] },
          { key: 'HIDDEN', secret: true },
        ],
      },
      { PIN: 'pin-0000', HIDDEN: 'hidden-1111' },
    );
    const misplaced: Array<[string, Record<string, unknown>]> = [
      ['path', { path: '/echo/<<PIN>>' }],
      ['query', { query: { pin: '<<PIN>>' } }],
      ['body', { body: { pin: '<<PIN>>' } }],
      ['body', { body: 'pin=<<PIN>>' }],
    ];
    for (const [place, fields] of misplaced) {
      const { answer } = await app.invoke('request', { method: 'POST', path: '/echo', ...fields });
      const failed = errorAnswer(answer);
      expect(failed.message).toBe(
        `variable <<PIN>> is secret and may not be placed in the ${place} (its stepPlaces: headers)`,
      );
      expect(failed.retryable).toBeUndefined();
    }
    const hidden = await app.invoke('request', {
      method: 'GET',
      path: '/echo',
      headers: { 'x-h': '<<HIDDEN>>' },
    });
    expect(errorAnswer(hidden.answer).message).toContain('(its stepPlaces: none)');
    expect(suite.vendor.requests).toHaveLength(0);
    const allowed = await app.invoke('request', {
      method: 'GET',
      path: '/echo',
      headers: { 'x-pin': '<<PIN>>' },
    });
    expect(okOutput(allowed.answer).status).toBe(200);
    expect(sent().headers['x-pin']).toBe('pin-0000');
  });

  it('reads what follows a ? in path as query: a secret allowed in the path only stays out of the query', async () => {
    const app = await installs.install(
      {
        variables: [
          { key: 'ACCT', secret: true, stepPlaces: ['path'] },
          { key: 'BOTH', secret: true, stepPlaces: ['path', 'query'] },
        ],
      },
      { ACCT: 'acct-secret-1234', BOTH: 'both-secret-5678' },
    );
    const { answer } = await app.invoke('request', { method: 'GET', path: '/echo/x?q=<<ACCT>>' });
    expect(errorAnswer(answer).message).toBe(
      'variable <<ACCT>> is secret and may not be placed in the query (its stepPlaces: path)',
    );
    expect(suite.vendor.requests).toHaveLength(0);

    await app.invoke('request', { method: 'GET', path: '/echo/<<ACCT>>?q=<<BOTH>>&r=1', query: { s: '2' } });
    expect(sent().path).toBe('/echo/acct-secret-1234');
    expect(sent().query).toEqual({ q: 'both-secret-5678', r: '1', s: '2' });
  });
});

describe('errors', () => {
  const call = (app: LoadedApp, code: number, query: Record<string, string> = {}) =>
    app
      .invoke('request', { method: 'GET', path: `/status/${code}`, query })
      .then((r) => errorAnswer(r.answer));

  it('5xx and 429 are retryable, with retryAfterMs from Retry-After; 404 is final', async () => {
    const app = await installs.install();
    const outage = await call(app, 500);
    expect(outage).toMatchObject({
      retryable: true,
      message: 'the vendor answered 500: {"error":"status 500"}',
    });
    expect(outage.retryAfterMs).toBeUndefined();
    expect(await call(app, 429, { retryAfter: '7' })).toMatchObject({ retryable: true, retryAfterMs: 7000 });
    // An HTTP date: far ahead is capped at one hour, one already past asks for no wait.
    const later = await call(app, 503, { retryAfter: 'Fri, 01 Jan 2100 00:00:00 GMT' });
    expect(later).toMatchObject({ retryable: true, retryAfterMs: 3_600_000 });
    const past = await call(app, 503, { retryAfter: 'Sun, 06 Nov 1994 08:49:37 GMT' });
    expect(past).toMatchObject({ retryable: true, retryAfterMs: 0 });
    const missing = await call(app, 404);
    expect(missing.message).toBe('the vendor answered 404: {"error":"status 404"}');
    expect(missing.retryable).toBeUndefined();
  });

  it('a request never sent is retryable whatever its method', async () => {
    const port = await closedPort();
    const app = await installs.install({ baseUrl: `http://127.0.0.1:${port}` }, {}, [`127.0.0.1:${port}`]);
    const { answer } = await app.invoke('request', { method: 'POST', path: '/orders', body: { n: 1 } });
    expect(errorAnswer(answer)).toMatchObject({ retryable: true });
    expect(errorAnswer(answer).message).toMatch(/^http_request: /);
  });

  it('a request that may have arrived is retryable only for idempotent methods or with an idempotency key', async () => {
    const dropping = await startDroppingServer();
    try {
      const config = { baseUrl: dropping.url };
      const app = await installs.install(config, {}, [dropping.host]);
      const post = errorAnswer(
        (await app.invoke('request', { method: 'POST', path: '/orders', body: {} })).answer,
      );
      expect(post.retryable).toBeUndefined();
      expect(post.message).toContain('not retried: POST may have reached the vendor');
      const get = errorAnswer((await app.invoke('request', { method: 'GET', path: '/orders/1' })).answer);
      expect(get.retryable).toBe(true);
      const keyed = await installs.install({ ...config, idempotencyKeyHeader: 'Idempotency-Key' }, {}, [
        dropping.host,
      ]);
      const { answer } = await keyed.invoke(
        'request',
        { method: 'POST', path: '/orders', body: {} },
        { idempotencyKey: 'k-1' },
      );
      expect(errorAnswer(answer).retryable).toBe(true);
    } finally {
      await dropping.close();
    }
  });

  it('sends the idempotency key in the configured header; a request the host refuses is final', async () => {
    const app = await installs.install({ idempotencyKeyHeader: 'Idempotency-Key' });
    await app.invoke('request', { method: 'POST', path: '/echo', body: {} }, { idempotencyKey: 'step-42' });
    expect(sent().headers['idempotency-key']).toBe('step-42');
    const { answer } = await app.invoke('request', {
      method: 'GET',
      path: '/echo',
      headers: { Host: 'elsewhere' },
    });
    expect(errorAnswer(answer)).toMatchObject({
      message: 'http_request: header host is set by the host and may not be given',
    });
    expect(errorAnswer(answer).retryable).toBeUndefined();
  });
});

it('the config schema refuses ids from unsigned places, misshaped variables and incomplete auth', async () => {
  const app = await installs.install();
  const validate = createSchemaAjv().compile(app.manifest.configSchema);
  const base = { baseUrl: 'https://api.vendor.example/v1' };
  const good = [
    { webhook: { scheme: 'standard-webhooks', externalIdFrom: { header: 'webhook-id' } } },
    { webhook: { scheme: 'hmac', externalIdFrom: { json: '/id' }, eventIdFrom: { json: '/event' } } },
    {
      variables: [
        { key: 'A', secret: true, stepPlaces: ['path'] },
        { key: 'b', value: 'x' },
      ],
    },
    { auth: { type: 'digest', username: '{{secret:USERNAME}}' } },
  ];
  for (const config of good) expect(validate({ ...base, ...config }), JSON.stringify(config)).toBe(true);
  const bad = [
    { webhook: { scheme: 'hmac', externalIdFrom: { header: 'x-job-id' } } },
    {
      webhook: {
        scheme: 'hmac-timestamped',
        externalIdFrom: { json: '/id' },
        eventIdFrom: { header: 'x-event' },
      },
    },
    { webhook: { scheme: 'standard-webhooks', externalIdFrom: { header: 'x-job-id' } } },
    { webhook: { scheme: 'hmac', externalIdFrom: { query: 'id' } } },
    { webhook: { scheme: 'hmac' } },
    { variables: [{ key: 'A', secret: true, value: 'x' }] },
    { variables: [{ key: 'b', value: 'x', stepPlaces: ['path'] }] },
    { auth: { type: 'basic' } },
    { auth: { type: 'apiKey' } },
    { baseUrl: 'ftp://files.vendor.example' },
  ];
  for (const config of bad) expect(validate({ ...base, ...config }), JSON.stringify(config)).toBe(false);
  expect(validate({})).toBe(false);
});

it('passes the conformance check with its samples', async () => {
  const setup = await conformanceSetup();
  try {
    const report = await checkConformance(suite.module, setup);
    expect(report.checks.filter((c) => !c.passed)).toEqual([]);
    expect(report.checks.map((c) => c.name)).toContain(
      'request_async: a job completed by a signed webhook: completes through handle_webhook with the same external id',
    );
    expect(report.passed).toBe(true);
  } finally {
    await setup.close?.();
  }
});
