// Log lines (docs/operations.md): the base fields, requestId on every api line, tenantId and principalKind
// after authentication, and the censored keys.
import os from 'node:os';
import { Writable } from 'node:stream';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withoutQueryParameters } from '../../src/error-text.ts';
import { CENSORED_KEYS, createLogger, errorForLog } from '../../src/logging.ts';
import { PLATFORM_VERSION } from '../../src/version.ts';
import { publishDefinitionRows } from '../runs/definitions.ts';
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

/** A value from a run's context: it must never reach a log line. */
const MARKER = 'Applicant-Marker-7f3a';

/** What PostgreSQL's error carries beside its code: the row (detail) and the JSON it choked on (where). */
function pgError(): Error {
  return Object.assign(new Error('unsupported Unicode escape sequence'), {
    name: 'error',
    code: '22P05',
    severity: 'ERROR',
    detail: `Failing row contains (${MARKER}).`,
    where: `JSON data, line 1: {"name":"${MARKER}`,
    table: 'workflow_runs',
    constraint: 'workflow_runs_pkey',
    position: '12',
  });
}

describe('error lines carry no query parameters', () => {
  const query = 'update "workflow_runs" set "context" = $1 where "id" = $2';
  const failed = () => new DrizzleQueryError(query, [`{"name":"${MARKER}"}`, 'run-1'], pgError());

  it.each([
    [
      'no parameters: unchanged',
      'connect ECONNREFUSED 127.0.0.1:5432',
      'connect ECONNREFUSED 127.0.0.1:5432',
    ],
    [
      'Drizzle’s message',
      `Failed query: ${query}\nparams: {"name":"${MARKER}"},run-1`,
      `Failed query: ${query}`,
    ],
    [
      'a stack: the frames go with them',
      `DrizzleQueryError: Failed query: x\nparams: ${MARKER}\n    at f (a.js:1:1)`,
      'DrizzleQueryError: Failed query: x',
    ],
    [
      'DBOS’s retries message: the rest goes too',
      `Step end has exceeded its maximum of 3 retries. Previous errors: Error 1: Failed query: x\nparams: ${MARKER}. Error 2: y`,
      'Step end has exceeded its maximum of 3 retries. Previous errors: Error 1: Failed query: x',
    ],
  ])('%s', (_name, text, expected) => {
    expect(withoutQueryParameters(text)).toBe(expected);
  });

  it('errorForLog keeps type, message, stack, SQLSTATE and the names of the table and constraint', () => {
    const error = failed();
    const line = errorForLog(error) as Record<string, unknown>;
    expect(line).toEqual({
      type: 'DrizzleQueryError',
      message: `Failed query: ${query}`,
      stack: expect.stringMatching(/^Error: Failed query: update .*\n {4}at /s),
      cause: {
        type: 'Error',
        message: 'unsupported Unicode escape sequence',
        stack: expect.stringMatching(/^\w+: unsupported Unicode escape sequence\n {4}at /),
        code: '22P05',
        table: 'workflow_runs',
        constraint: 'workflow_runs_pkey',
      },
    });
    expect(JSON.stringify(line)).not.toContain(MARKER);
  });

  it('errorForLog opens an error’s errors (DBOS’s retries, AggregateError) and bounds the depth', () => {
    const aggregate = new AggregateError([failed(), new Error(`plain ${'x'}`)], 'all failed');
    const line = errorForLog(aggregate) as { errors: Record<string, unknown>[] };
    expect(line.errors.map((e) => e.message)).toEqual([`Failed query: ${query}`, 'plain x']);
    expect(JSON.stringify(line)).not.toContain(MARKER);
    let deep: Error = new Error('root');
    for (let i = 0; i < 50; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(JSON.stringify(errorForLog(deep)).length).toBeLessThan(20_000);
  });

  it('a logger writes an err field, a thrown string and a non-error through the same rule', () => {
    const { lines, logger } = capture();
    logger.error({ err: failed() }, 'one');
    logger.error({ err: `Failed query: x\nparams: ${MARKER}` }, 'two');
    logger.error({ err: { params: [MARKER], message: 'odd' } }, 'three');
    expect(lines.map((line) => line.err)).toEqual([
      expect.objectContaining({ type: 'DrizzleQueryError', message: `Failed query: ${query}` }),
      'Failed query: x',
      { type: 'Object', message: 'odd' },
    ]);
    expect(JSON.stringify(lines)).not.toContain(MARKER);
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
      // An applicant's token reaches only its submission's routes: refused here, still logged as its kind.
      const refused = kind === 'applicant';
      expect(line).toMatchObject({
        requestId: `kind-${kind}`,
        tenantId,
        principalKind: kind,
        method: 'GET',
        route: '/tenants/me',
        statusCode: refused ? 403 : 200,
        msg: 'request completed',
      });
      if (!refused) expect(line).not.toHaveProperty('code');
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

  it('a route’s line names its pattern, not the path or the query string (log-path.test.ts)', async () => {
    const response = await platform.fetch('/audit-events?action=tenant.&limit=5', {
      headers: { 'x-request-id': 'query-1' },
    });
    await response.text();
    const [line] = await linesOf(platform.logs, 'query-1');
    expect(line).toMatchObject({ route: '/audit-events' });
    expect(line).not.toHaveProperty('path');
    expect(JSON.stringify(line)).not.toContain('tenant.');
  });

  it('a 500’s line carries neither the SQL parameters nor what PostgreSQL quoted of the row', async () => {
    const tenantId = await platform.tenantId();
    await publishDefinitionRows(platform.database, tenantId, 'workflow', 'refused', {
      steps: [{ id: 'decide', type: 'decide', branches: [], otherwise: 'approve' }],
    } as never);
    // The database refuses this subject's run: the insert fails with the whole context as a parameter.
    await platform.database.pool.query(`
      CREATE FUNCTION refuse_run() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused for the test' USING DETAIL = NEW.context::text; END $$;
      CREATE TRIGGER refuse_run BEFORE INSERT ON workflow_runs
        FOR EACH ROW WHEN (NEW.subject_id = 'refused') EXECUTE FUNCTION refuse_run();`);
    const response = await platform.fetch('/workflow-runs', {
      method: 'POST',
      headers: { 'x-request-id': 'forced-500' },
      json: { workflow: 'refused', subjectId: 'refused', context: { applicant: { name: MARKER } } },
    });
    await expectError(response, 500, 'internal');
    const [line] = await linesOf(platform.logs, 'forced-500');
    expect(line).toMatchObject({
      statusCode: 500,
      code: 'internal',
      err: {
        type: 'DrizzleQueryError',
        message: expect.stringMatching(
          /^Failed query: with "steps" as \(\s*insert into workflow_run_steps [\s\S]*\) insert into "workflow_runs"/,
        ),
        cause: { code: 'P0001', message: 'refused for the test' },
      },
    });
    expect(JSON.stringify(platform.logs)).not.toContain(MARKER);
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
