// Log lines readable on a terminal, JSON anywhere else (docs/operations.md "Logs", LOG_FORMAT): `npm start`
// in a terminal shows one short line per request instead of a JSON object. The terminal is a real one
// (util-linux `script` runs the process on a pseudo-terminal).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, logFormatOf, readableMessage } from '../../src/logging.ts';
import { baseEnv, ROOT } from '../support/processes.ts';

describe('logFormatOf', () => {
  it.each<[string | undefined, boolean, string]>([
    [undefined, true, 'pretty'],
    [undefined, false, 'json'],
    ['', true, 'pretty'],
    ['json', true, 'json'],
    ['pretty', false, 'pretty'],
    ['pretty', true, 'pretty'],
    ['json', false, 'json'],
  ])('LOG_FORMAT=%s on a terminal %s → %s', (setting, terminal, format) => {
    expect(logFormatOf(setting, terminal)).toBe(format);
  });
});

describe('readableMessage', () => {
  it.each<[Record<string, unknown>, string]>([
    [
      {
        role: 'api',
        method: 'GET',
        route: '/subjects/:subjectId/documents',
        statusCode: 200,
        responseTimeMs: 12,
      },
      'api: GET /subjects/:subjectId/documents 200 12 ms',
    ],
    [
      { method: 'POST', route: null, path: '/subjects/*/x', statusCode: 404, responseTimeMs: 1 },
      'POST /subjects/*/x 404 1 ms',
    ],
    [{ role: 'worker', msg: 'started' }, 'worker: started'],
    [{ msg: 'no role' }, 'no role'],
    [{}, ''],
  ])('%j → %s', (line, text) => {
    expect(readableMessage(line)).toBe(text);
  });
});

describe('createLogger', () => {
  it('pretty: one readable line, the censored keys still censored', () => {
    let written = '';
    const destination = new Writable({
      write(chunk, _encoding, done) {
        written += String(chunk);
        done();
      },
    });
    const logger = createLogger({ service: 's', level: 'info', env: 'dev', destination, format: 'pretty' });
    logger.child({ role: 'api' }).info(
      {
        method: 'GET',
        route: '/tenants/me',
        statusCode: 200,
        responseTimeMs: 3,
        requestId: 'r-1',
        token: 'tok-1',
      },
      'request completed',
    );
    expect(written.split('\n').filter(Boolean)).toHaveLength(1);
    expect(written).toContain('api: GET /tenants/me 200 3 ms');
    expect(written).toContain('r-1');
    expect(written).not.toContain('tok-1');
    expect(written).not.toContain('"level"');
  });
});

describe('on standard output', () => {
  let dir: string;
  let script: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-log-format-'));
    script = path.join(dir, 'log.ts');
    await fs.writeFile(
      script,
      [
        `import { createLogger } from ${JSON.stringify(path.join(ROOT, 'src', 'logging.ts'))};`,
        "const logger = createLogger({ service: 's', level: 'info', env: 'dev' }).child({ role: 'api' });",
        "logger.info({ method: 'GET', route: '/tenants/me', statusCode: 200, responseTimeMs: 3 }, 'request completed');",
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** What the logger prints, on a pseudo-terminal or into a pipe. */
  function output(terminal: boolean, env: Record<string, string> = {}): Promise<string> {
    const node = [process.execPath, '--import', 'tsx', script].map((part) => `'${part}'`).join(' ');
    const [file, args] = terminal
      ? ['script', ['-qec', node, '/dev/null']]
      : [process.execPath, ['--import', 'tsx', script]];
    return new Promise((resolve, reject) => {
      execFile(file as string, args as string[], { env: baseEnv(env), cwd: ROOT }, (error, stdout) =>
        error ? reject(error) : resolve(stdout.replaceAll('\r', '')),
      );
    });
  }

  it('a terminal gets a readable line', async () => {
    const text = await output(true);
    expect(text).toContain('api: GET /tenants/me 200 3 ms');
    expect(text).not.toContain('{"level"');
  });

  it('a pipe gets JSON', async () => {
    const text = await output(false);
    expect(JSON.parse(text.trim())).toMatchObject({ role: 'api', route: '/tenants/me', statusCode: 200 });
  });

  it('LOG_FORMAT=json on a terminal gets JSON; LOG_FORMAT=pretty in a pipe a readable line', async () => {
    expect(JSON.parse((await output(true, { LOG_FORMAT: 'json' })).trim())).toMatchObject({
      statusCode: 200,
    });
    expect(await output(false, { LOG_FORMAT: 'pretty' })).toContain('api: GET /tenants/me 200 3 ms');
  });
});
