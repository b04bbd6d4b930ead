// Held connections on the real api over raw sockets: a request body that trickles is cut off after
// HTTP_REQUEST_TIMEOUT_MS, and a request refused before its body is read (401, 413, 415) closes the
// connection instead of waiting for the rest of the body. Each test waits for the socket's close event.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

interface Exchange {
  /** Everything the server sent before the socket closed. */
  received: Promise<string>;
  socket: net.Socket;
}

/**
 * Opens a socket to the api and sends `head` (request line and headers) and the start of a body; `head`
 * ends with a half-written header when `bodyStart` is empty.
 */
function open(platform: TestPlatform, head: string[], bodyStart: string): Exchange {
  const url = new URL(platform.url);
  const socket = net.connect(Number(url.port), url.hostname);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.on('error', () => {});
  const received = new Promise<string>((resolve) => socket.on('close', () => resolve(text)));
  socket.write(bodyStart === '' ? head.join('\r\n') : `${head.join('\r\n')}\r\n\r\n${bodyStart}`);
  return { received, socket };
}

const headOf = (method: string, path: string, headers: Record<string, string>) => [
  `${method} ${path} HTTP/1.1`,
  'Host: 127.0.0.1',
  ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
];

describe('with HTTP_REQUEST_TIMEOUT_MS 300', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ HTTP_REQUEST_TIMEOUT_MS: '300' });
  });
  afterAll(async () => platform?.close());

  it('closes a connection whose body trickles in, answering 408', async () => {
    const token = await platform.token();
    const { received, socket } = open(
      platform,
      headOf('PUT', '/tenants/me/settings', {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': '100000',
      }),
      '{"approvals":',
    );
    // One byte at a time keeps the socket busy, so only the request's own deadline can end it.
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(' ');
    }, 20);
    try {
      const text = await received;
      expect(text).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
    }
  });

  it('closes a connection whose headers never end, answering 408', async () => {
    const { received } = open(platform, ['GET /tenants/me HTTP/1.1', 'Host: 127.0.0.1', 'x-slow: '], '');
    expect(await received).toMatch(/^HTTP\/1\.1 408 /);
  });
});

describe('a request refused before its body is read', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    // The default request timeout (two minutes) is far off: only the refusal may close these sockets.
    platform = await startTestPlatform();
  });
  afterAll(async () => platform?.close());

  const refusedWith = async (headers: Record<string, string>, status: number, code: string) => {
    const { received } = open(platform, headOf('PUT', '/tenants/me/settings', headers), '{"approvals":');
    const text = await received;
    const [head, body] = text.split('\r\n\r\n') as [string, string];
    expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toMatchObject({ error: { code } });
  };

  it('401: answers and closes the connection', async () => {
    await refusedWith(
      { authorization: 'Bearer not-a-jwt', 'content-type': 'application/json', 'content-length': '100000' },
      401,
      'unauthorized',
    );
  });

  it('413: answers and closes the connection', async () => {
    await refusedWith(
      {
        authorization: `Bearer ${await platform.token()}`,
        'content-type': 'application/json',
        'content-length': String(64 * 1024 * 1024),
      },
      413,
      'payload_too_large',
    );
  });

  it('415: answers and closes the connection', async () => {
    await refusedWith(
      {
        authorization: `Bearer ${await platform.token()}`,
        'content-type': 'text/plain',
        'content-length': '100000',
      },
      415,
      'unsupported_media_type',
    );
  });

  it('keeps the connection of a request answered after its whole body arrived', async () => {
    const response = await platform.fetch('/tenants/me/settings', { method: 'PUT', json: {} });
    expect(response.status).toBe(400);
    expect(response.headers.get('connection')).not.toBe('close');
    await response.text();
  });
});
