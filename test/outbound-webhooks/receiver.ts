// A webhook receiver for the tests: an http server on 127.0.0.1 keeping each request (raw body and
// headers) and answering the status it is told; and the signature check a receiver writes from the
// documented rule, nothing borrowed from the platform's code.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /**
   * How the next requests are answered: the status (204 to begin with), with a body when told; `hang`
   * leaves them unanswered (kept, the connection open until close).
   */
  answer: { status: number; location?: string; body?: string; hang?: boolean };
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const answer: Receiver['answer'] = { status: 204 };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      if (answer.hang) return;
      response.writeHead(answer.status, answer.location ? { location: answer.location } : {});
      response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A TCP listener counting the connections and bytes that reach it. */
export async function startListener() {
  const seen = { connections: 0, bytes: 0 };
  const server = net.createServer((socket) => {
    seen.connections++;
    socket.on('data', (chunk) => {
      seen.bytes += chunk.length;
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * X-Service-Signature is `t=<unix seconds>,v1=<hex>` with one v1 per active secret; each v1 is the hex
 * HMAC-SHA256, keyed with the secret, of `<t>.<raw body>`. A receiver recomputes it over the raw body,
 * compares each v1 in constant time, and refuses a t more than five minutes from now.
 */
export function verifySignature(header: string, rawBody: string, secret: string, nowMs = Date.now()) {
  const parts = header.split(',').map((part) => part.split('=') as [string, string]);
  const t = parts.find(([name]) => name === 't')?.[1];
  if (t === undefined || !/^\d+$/.test(t)) return false;
  if (Math.abs(nowMs / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return parts
    .filter(([name]) => name === 'v1')
    .some(([, hex]) => {
      const given = Buffer.from(hex, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** The v1 values of a signature header. */
export const v1Count = (header: string) => header.split(',').filter((part) => part.startsWith('v1=')).length;

export interface HangingReceiver {
  url: string;
  /** Requests to /hang/… that arrived (each left unanswered), and requests elsewhere (answered 204). */
  hung: number;
  answered: number;
  close(): Promise<void>;
}

/**
 * One origin serving a hanging receiver and a well-behaved one: a request to /hang/… is read and never
 * answered (the connection stays open until close), any other is answered 204 at once.
 */
export async function startHangingReceiver(): Promise<HangingReceiver> {
  const state = { hung: 0, answered: 0 };
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url?.startsWith('/hang/')) state.hung += 1;
      else {
        state.answered += 1;
        response.writeHead(204).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get hung() {
      return state.hung;
    },
    get answered() {
      return state.answered;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
