// How a command finds the api (src/cli/api-url.ts): --api-url, else API_URL, else the platform running from
// DATA_DIR, else HOST and PORT; the record a running platform keeps in DATA_DIR; a failure naming the URL.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiUnreachable,
  type ApiUrlSources,
  chooseApiUrl,
  fetchApi,
  findApiUrl,
  localApiUrl,
  RUNNING_API_FILE,
  readRunningApi,
  recordRunningApi,
} from '../../src/cli/api-url.ts';
import { UsageError } from '../../src/cli/usage.ts';
import { freePort } from '../support/free-port.ts';

const NONE: ApiUrlSources = {
  option: undefined,
  env: undefined,
  running: null,
  host: '127.0.0.1',
  port: 3000,
};
const RUNNING = { url: 'http://127.0.0.1:3100', dataDir: '/clone/.data' };

describe('chooseApiUrl', () => {
  it.each<[string, Partial<ApiUrlSources>, string, string]>([
    ['nothing said: HOST and PORT', {}, 'http://127.0.0.1:3000', 'HOST and PORT'],
    ['PORT set', { port: 3100 }, 'http://127.0.0.1:3100', 'HOST and PORT'],
    ['HOST on every interface', { host: '0.0.0.0', port: 8080 }, 'http://127.0.0.1:8080', 'HOST and PORT'],
    [
      'a running platform',
      { running: RUNNING },
      'http://127.0.0.1:3100',
      'the platform running from /clone/.data',
    ],
    [
      'API_URL over the running platform',
      { env: 'http://api.test:9', running: RUNNING },
      'http://api.test:9',
      'API_URL',
    ],
    [
      'API_URL empty: as unset',
      { env: '  ', running: RUNNING },
      'http://127.0.0.1:3100',
      'the platform running from /clone/.data',
    ],
    [
      '--api-url over everything',
      { option: 'https://x.test/', env: 'http://api.test:9', running: RUNNING },
      'https://x.test',
      '--api-url',
    ],
    [
      'a path kept, its trailing slash not',
      { option: 'http://x.test/platform/' },
      'http://x.test/platform',
      '--api-url',
    ],
  ])('%s', (_case, sources, url, from) => {
    expect(chooseApiUrl({ ...NONE, ...sources })).toEqual({ url, from });
  });

  it.each<[Partial<ApiUrlSources>, RegExp]>([
    [{ option: 'localhost:3000' }, /^--api-url: an http or https URL .*got "localhost:3000"/],
    [{ env: 'ftp://api.test' }, /^API_URL: an http or https URL/],
    [{ option: '' }, /^--api-url: /],
  ])('refuses %j as a usage error naming where it came from', (sources, message) => {
    expect(() => chooseApiUrl({ ...NONE, ...sources })).toThrow(UsageError);
    expect(() => chooseApiUrl({ ...NONE, ...sources })).toThrow(message);
  });
});

describe('localApiUrl', () => {
  it.each([
    ['127.0.0.1', 3000, 'http://127.0.0.1:3000'],
    ['0.0.0.0', 3000, 'http://127.0.0.1:3000'],
    ['', 3000, 'http://127.0.0.1:3000'],
    ['::', 3000, 'http://[::1]:3000'],
    ['::1', 3001, 'http://[::1]:3001'],
    ['10.0.0.5', 80, 'http://10.0.0.5:80'],
  ])('%s:%d → %s', (host, port, url) => {
    expect(localApiUrl(host, port)).toBe(url);
  });
});

describe('the running platform’s record', () => {
  let dataDir: string;
  const logger = { warn: () => {} };
  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'apps-platform-api-url-'));
  });
  afterAll(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('is read while its process lives, at loopback for an api on every interface; removed at its stop', async () => {
    const remove = await recordRunningApi(dataDir, 'http://0.0.0.0:3456', logger);
    expect(await readRunningApi(dataDir)).toBe('http://127.0.0.1:3456');
    const config = { dataDir, host: '127.0.0.1', port: 3000 };
    expect(await findApiUrl(undefined, config, {})).toEqual({
      url: 'http://127.0.0.1:3456',
      from: `the platform running from ${dataDir}`,
    });
    expect(await findApiUrl(undefined, config, { API_URL: 'http://api.test' })).toMatchObject({
      from: 'API_URL',
    });
    await remove();
    expect(await readRunningApi(dataDir)).toBeNull();
    expect(await findApiUrl(undefined, config, {})).toEqual({
      url: 'http://127.0.0.1:3000',
      from: 'HOST and PORT',
    });
  });

  it.each([
    ['a process that is gone', JSON.stringify({ pid: 2 ** 22 + 1, url: 'http://127.0.0.1:1' })],
    ['a damaged file', '{"pid": '],
    ['no URL', JSON.stringify({ pid: process.pid })],
  ])('is passed over for %s', async (_case, text) => {
    await fs.writeFile(path.join(dataDir, RUNNING_API_FILE), text);
    expect(await readRunningApi(dataDir)).toBeNull();
  });

  it('is left alone at a stop when another process wrote it since', async () => {
    const remove = await recordRunningApi(dataDir, 'http://127.0.0.1:3456', logger);
    const other = JSON.stringify({ pid: 1, url: 'http://127.0.0.1:4000' });
    await fs.writeFile(path.join(dataDir, RUNNING_API_FILE), other);
    await remove();
    expect(await fs.readFile(path.join(dataDir, RUNNING_API_FILE), 'utf8')).toBe(other);
  });

  it('a DATA_DIR that cannot be written is logged and passed over', async () => {
    const warnings: unknown[] = [];
    const remove = await recordRunningApi(path.join(dataDir, 'absent', 'deeper'), 'http://127.0.0.1:1', {
      warn: (...args: unknown[]) => warnings.push(args),
    });
    expect(warnings).toHaveLength(1);
    await remove();
  });
});

describe('fetchApi', () => {
  it('a platform that does not answer: the URL, where it came from and why', async () => {
    const api = { url: `http://127.0.0.1:${await freePort()}`, from: 'API_URL' };
    const failure = await fetchApi(api, '/health', {}).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiUnreachable);
    expect((failure as Error).message).toBe(
      `cannot reach the platform at ${api.url} (ECONNREFUSED; the URL from API_URL): is it running? --api-url or API_URL names another`,
    );
  });
});
