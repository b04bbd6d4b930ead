// The runner client against the real runner service, and against servers standing for the outside
// world's failures: a closed port, a name that does not resolve, a server that hangs up after the request
// arrived, one that never answers, one that answers something no runner would.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { Agent, Client } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRunnerClient, type RunnerClient, type RunnerInvokeRequest } from '../../src/runner/client.ts';
import { buildFixture } from '../support/assemblyscript.ts';
import { freePort } from '../support/free-port.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { RUNNER_TOKEN, startTestRunner, type TestRunner } from '../support/runner.ts';

let platform: TestPlatform;
let runner: TestRunner;
let client: RunnerClient;
let echoBytes: Uint8Array;
let echo: string;
let hostile: string;
const tenantId = randomUUID();

beforeAll(async () => {
  platform = await startTestPlatform({ APP_RUNNER_TOKEN: RUNNER_TOKEN });
  runner = await startTestRunner(platform);
  echoBytes = await buildFixture('echo');
  echo = await runner.store(echoBytes);
  hostile = await runner.store(await buildFixture('hostile'), 16);
  client = createRunnerClient({ baseUrl: runner.url, token: RUNNER_TOKEN });
}, 120_000);
afterAll(async () => {
  await client?.close();
  await runner?.close();
  await platform?.close();
});

const invokeBody = (overrides: Partial<RunnerInvokeRequest> = {}): RunnerInvokeRequest => ({
  module: { sha256: echo },
  call: { id: randomUUID(), tenantId },
  action: 'echo',
  idempotencyKey: 'key-1',
  config: {},
  input: { n: 1 },
  timeoutMs: 5000,
  ...overrides,
});

const common = () => ({ module: { sha256: echo }, call: { id: randomUUID(), tenantId }, config: {} });

describe('against the real runner', () => {
  it('answers the runner value for invoke, handle_webhook and handoff', async () => {
    const invoked = await client.invoke(invokeBody());
    expect(invoked.ok).toBe(true);
    if (!invoked.ok) return;
    expect(invoked.value.answer).toMatchObject({ status: 'ok', output: { envelope: { input: { n: 1 } } } });
    expect(invoked.value.usage).toEqual({
      httpRequests: 0,
      reusedConnections: 0,
      documentReads: 0,
      logLines: 0,
    });

    const webhook = await client.handleWebhook({
      ...common(),
      request: { method: 'POST', headers: {}, query: {}, bodyBase64: '' },
    });
    expect(webhook).toMatchObject({ ok: true, value: { answer: { status: 'ignored' } } });
    const handoff = await client.handoff({
      ...common(),
      externalId: 'session-1',
      returnUrl: 'https://flow.example.com/flow/1',
    });
    expect(handoff).toMatchObject({ ok: true, value: { answer: { status: 'ok', handoff: null } } });
  });

  it('inspects a module: a verdict either way', async () => {
    const accepted = await client.inspect(echoBytes);
    expect(accepted).toMatchObject({ ok: true, value: { accepted: true, manifest: { name: 'echo' } } });
    const refused = await client.inspect(new TextEncoder().encode('not a module'));
    expect(refused).toMatchObject({ ok: true, value: { accepted: false, code: 'not_wasm' } });
  });

  it("maps the runner's error bodies to their code, status, message and details", async () => {
    expect(await client.invoke(invokeBody({ module: { sha256: '0'.repeat(64) } }))).toMatchObject({
      ok: false,
      code: 'module_not_found',
      status: 404,
      message: expect.any(String),
      requestId: expect.any(String),
    });

    const invalid = await client.invoke(invokeBody({ timeoutMs: 50 }));
    expect(invalid).toMatchObject({ ok: false, code: 'bad_request', status: 400 });
    if (!invalid.ok && invalid.status !== null) {
      expect(invalid.details?.issues).toEqual([expect.objectContaining({ path: '/timeoutMs' })]);
    }

    const timeout = await client.invoke(
      invokeBody({ module: { sha256: hostile }, action: 'spin', timeoutMs: 300 }),
    );
    expect(timeout).toMatchObject({
      ok: false,
      code: 'timeout',
      status: 504,
      details: { usage: { httpRequests: 0 } },
    });

    const trapped = await client.invoke(invokeBody({ module: { sha256: hostile }, action: 'trap' }));
    expect(trapped).toMatchObject({ ok: false, code: 'trapped', status: 502 });
  });

  it('answers unauthorized with a wrong token', async () => {
    const wrong = createRunnerClient({ baseUrl: runner.url, token: 'wrong' });
    try {
      expect(await wrong.invoke(invokeBody())).toMatchObject({
        ok: false,
        code: 'unauthorized',
        status: 401,
      });
    } finally {
      await wrong.close();
    }
  });

  it("maps an error outside the runner's table by its status: a body too large is bad_request", async () => {
    const result = await client.invoke(invokeBody({ config: { big: 'x'.repeat(3 * 1024 * 1024) } }));
    expect(result).toMatchObject({
      ok: false,
      code: 'bad_request',
      status: 413,
      details: { runnerCode: 'payload_too_large' },
    });
  });
});

describe('transport failures', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** A TCP server on loopback that records what arrives and acts on each connection. */
  async function rawServer(onSocket: (socket: net.Socket, received: Buffer[]) => void) {
    const received: Buffer[] = [];
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
      onSocket(socket, received);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    );
    return { port, received };
  }

  function clientFor(port: number, extra: { timeoutMarginMs?: number } = {}) {
    const c = createRunnerClient({ baseUrl: `http://127.0.0.1:${port}`, token: RUNNER_TOKEN, ...extra });
    closers.push(() => c.close());
    return c;
  }

  it('answers not_sent when nothing listens on the port', async () => {
    const port = await freePort();
    const result = await clientFor(port).invoke(invokeBody());
    expect(result).toMatchObject({ ok: false, code: 'not_sent', status: null });
    if (!result.ok) expect(result.message).toContain('ECONNREFUSED');
  });

  it('answers not_sent when the name does not resolve', async () => {
    const c = createRunnerClient({ baseUrl: 'http://runner.invalid:8080', token: RUNNER_TOKEN });
    closers.push(() => c.close());
    expect(await c.invoke(invokeBody())).toMatchObject({ ok: false, code: 'not_sent', status: null });
  });

  it('answers not_sent when the deadline passes before any connection is made', async () => {
    // A connector that never completes stands for an address that swallows connection attempts.
    const stalled = new Agent({ connect: () => {} });
    closers.push(() => stalled.destroy());
    const c = createRunnerClient({
      baseUrl: 'http://127.0.0.1:9',
      token: RUNNER_TOKEN,
      dispatcher: stalled,
      timeoutMarginMs: 0,
    });
    expect(await c.invoke(invokeBody({ timeoutMs: 100 }))).toMatchObject({ ok: false, code: 'not_sent' });
  });

  it('answers unreachable when the server hangs up after the request arrived', async () => {
    const server = await rawServer((socket, received) => {
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk);
        socket.destroy();
      });
    });
    const result = await clientFor(server.port).invoke(invokeBody());
    expect(result).toMatchObject({ ok: false, code: 'unreachable', status: null });
    expect(Buffer.concat(server.received).toString()).toContain('POST /v1/invoke HTTP/1.1');
  });

  it('counts a call written to a kept-alive connection as sent', async () => {
    const answer = JSON.stringify({ answer: { status: 'ok', output: {} }, usage: {} });
    let requests = 0;
    let connections = 0;
    const server = await rawServer((socket, received) => {
      connections += 1;
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk);
        requests += 1;
        if (requests === 1) {
          socket.write(
            `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${answer.length}\r\n` +
              `connection: keep-alive\r\n\r\n${answer}`,
          );
        } else {
          socket.destroy();
        }
      });
    });
    // One undici Client is one connection: the second call goes out on the first call's socket.
    const origin = `http://127.0.0.1:${server.port}`;
    const single = new Client(origin);
    closers.push(() => single.destroy());
    const c = createRunnerClient({ baseUrl: origin, token: RUNNER_TOKEN, dispatcher: single });
    expect(await c.invoke(invokeBody())).toMatchObject({ ok: true });
    expect(await c.invoke(invokeBody())).toMatchObject({ ok: false, code: 'unreachable' });
    expect(requests).toBe(2);
    expect(connections).toBe(1);
  });

  it('answers unreachable when the server never answers, once the deadline and margin pass', async () => {
    const server = await rawServer((socket, received) => {
      socket.on('data', (chunk: Buffer) => received.push(chunk));
    });
    const result = await clientFor(server.port, { timeoutMarginMs: 100 }).invoke(
      invokeBody({ timeoutMs: 100 }),
    );
    expect(result).toMatchObject({ ok: false, code: 'unreachable', status: null });
    if (!result.ok) expect(result.message).toContain('200 ms');
    expect(server.received.length).toBeGreaterThan(0);
  });

  it('answers unreachable for an answer no runner gives', async () => {
    const garbage = await rawServer((socket) => {
      socket.once('data', () => socket.end('this is not HTTP\r\n\r\n'));
    });
    expect(await clientFor(garbage.port).invoke(invokeBody())).toMatchObject({
      ok: false,
      code: 'unreachable',
    });

    const answers: Array<[number, string, string]> = [
      [200, 'text/plain', 'ok'],
      [200, 'application/json', '{"unexpected":true}'],
      [502, 'text/html', '<html>bad gateway</html>'],
      [500, 'application/json', '{"message":"no error object"}'],
    ];
    for (const [status, type, body] of answers) {
      const server = http.createServer((_request, response) => {
        response.writeHead(status, { 'content-type': type }).end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(
        () =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      );
      const result = await clientFor((server.address() as net.AddressInfo).port).invoke(invokeBody());
      expect(result, `${status} ${body}`).toMatchObject({ ok: false, code: 'unreachable', status: null });
    }
  });
});
