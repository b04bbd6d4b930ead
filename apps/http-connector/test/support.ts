// What the http-connector tests share: the module built once per test file, installs of it run by the
// loader against a vendor double on 127.0.0.1, and the double's routes (echo, statuses, digest, jobs).
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import {
  type ErrorAnswer,
  type InvokeAnswer,
  type LoadedApp,
  loadApp,
  startVendorDouble,
  type VendorDouble,
  type VendorRequest,
  type WebhookAnswer,
} from '../../../packages/app-testing/src/index.ts';
import { buildApp } from '../../../src/app-cli/compile.ts';

export const APP_DIR = path.resolve(import.meta.dirname, '..');

/** Builds the app into a temporary folder; answers the module's path and a cleanup. */
export async function buildModule(): Promise<{ module: string; remove: () => Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'http-connector-'));
  const built = await buildApp(APP_DIR, path.join(dir, 'http-connector.wasm'));
  return { module: built.path, remove: () => fs.rm(dir, { recursive: true, force: true }) };
}

const echo = (request: VendorRequest) => ({
  json: {
    method: request.method,
    path: request.path,
    query: request.query,
    headers: request.headers,
    body: request.body,
  },
});

const DIGEST_REALM = 'vendor-double';
const DIGEST_NONCE = 'dcd98b7102dd2f0e8b11d0f600bfb0c093';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** Digest (RFC 7616, MD5, qop auth) as a vendor checks it, for the user the test expects. */
function digestRoute(username: string, password: string) {
  return (request: VendorRequest) => {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Digest ')) {
      return {
        status: 401,
        headers: {
          'www-authenticate': `Digest realm="${DIGEST_REALM}", nonce="${DIGEST_NONCE}", qop="auth"`,
        },
        json: { error: 'authenticate' },
      };
    }
    const params = Object.fromEntries(
      [...header.slice(7).matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]*))/g)].map((m) => [m[1], m[2] ?? m[3]]),
    );
    const ha1 = md5(`${username}:${DIGEST_REALM}:${password}`);
    const ha2 = md5(`${request.method}:${params.uri}`);
    const expected = md5(`${ha1}:${DIGEST_NONCE}:${params.nc}:${params.cnonce}:${params.qop}:${ha2}`);
    if (params.username !== username || params.response !== expected) return { status: 403, json: {} };
    return echo(request);
  };
}

export const DIGEST_USER = { username: 'dora-reports', password: 'digest-password-77' };

/** The vendor double of the tests. */
export async function startVendor(): Promise<VendorDouble> {
  let jobs = 0;
  return startVendorDouble([
    { path: /^\/echo(\/.*)?$/, respond: echo },
    { path: /^\/digest(\/.*)?$/, respond: digestRoute(DIGEST_USER.username, DIGEST_USER.password) },
    {
      path: '/status/:code',
      respond: (request) => ({
        status: Number(request.params.code),
        headers: request.query.retryAfter ? { 'retry-after': request.query.retryAfter } : undefined,
        json: { error: `status ${request.params.code}` },
      }),
    },
    { method: 'GET', path: '/text', headers: { 'content-type': 'text/plain' }, body: 'plain words' },
    { method: 'POST', path: '/jobs', respond: () => ({ status: 202, json: { id: `job_${++jobs}` } }) },
    { method: 'POST', path: '/jobs/nested', json: { data: { jobId: 4242 } } },
    { method: 'POST', path: '/jobs/anonymous', json: { accepted: true } },
  ]);
}

/** A server that takes a connection and the request, then drops it: the request may have arrived. */
export async function startDroppingServer(): Promise<{
  url: string;
  host: string;
  close: () => Promise<void>;
}> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('data', () => socket.destroy());
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on: connections to it are refused, so nothing is sent. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Opens installs of the module and closes them all at once. */
export class Installs {
  private open: LoadedApp[] = [];

  constructor(
    private module: () => string,
    private vendor: () => VendorDouble,
  ) {}

  /** An install calling the vendor double (its host approved through baseUrl and hosts). */
  async install(
    config: Record<string, unknown> = {},
    secrets: Record<string, string> = {},
    hosts: string[] = [],
  ): Promise<LoadedApp> {
    const vendor = this.vendor();
    const app = await loadApp(this.module(), {
      config: { baseUrl: vendor.url, ...config },
      secrets,
      hosts: [vendor.host, ...hosts],
    });
    this.open.push(app);
    return app;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((app) => app.close()));
  }
}

/** What the echo route answers: the request as the vendor received it. */
export interface Echo {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

/** The output of request. */
export interface ResponseOutput<B> {
  status: number;
  headers: Record<string, string>;
  body: B;
}

export function okOutput<B = Echo>(answer: InvokeAnswer): ResponseOutput<B> {
  if (answer.status !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(answer)}`);
  return answer.output as ResponseOutput<B>;
}

export function errorAnswer(answer: InvokeAnswer): ErrorAnswer {
  if (answer.status !== 'error') throw new Error(`expected an error, got ${JSON.stringify(answer)}`);
  return answer;
}

export function eventOf(answer: WebhookAnswer) {
  if (answer.status !== 'event') throw new Error(`expected an event, got ${JSON.stringify(answer)}`);
  return answer.event;
}

/** A test file's module, vendor double and installs, set up and torn down by the file's hooks. */
export class Suite {
  module = '';
  remove: () => Promise<void> = async () => {};
  #vendor: VendorDouble | null = null;
  readonly installs = new Installs(
    () => this.module,
    () => this.vendor,
  );

  get vendor(): VendorDouble {
    if (!this.#vendor) throw new Error('the vendor double has not started');
    return this.#vendor;
  }

  set vendor(vendor: VendorDouble) {
    this.#vendor = vendor;
  }

  /** The vendor's request i (oldest first). */
  sent(i = 0): VendorRequest {
    const request = this.vendor.requests[i];
    if (!request) throw new Error(`the vendor received no request ${i}`);
    return request;
  }
}

/** Registers the hooks of a test file: the module built once, a fresh vendor log and installs per test. */
export function connectorSuite(): Suite {
  const suite = new Suite();
  beforeAll(async () => {
    const built = await buildModule();
    suite.module = built.module;
    suite.remove = built.remove;
    suite.vendor = await startVendor();
  });
  afterAll(async () => {
    await suite.installs.closeAll();
    await suite.vendor.close();
    await suite.remove();
  });
  beforeEach(() => suite.vendor.reset());
  afterEach(() => suite.installs.closeAll());
  return suite;
}
