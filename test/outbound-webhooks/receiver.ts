// A tenant's receiver of outbound webhooks, written from the documented scheme alone (docs/outbound-webhooks.md), never
// from the platform's signing code: the HMAC-SHA256, keyed with the secret's text, of "<t>.<raw body>"
// recomputed over the raw bytes before parsing, every v1 compared in constant time, a timestamp more than
// five minutes from now refused.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
}

export function verifySignature(
  header: string | undefined,
  raw: string,
  secret: string,
  nowMs: number,
): boolean {
  if (!header) return false;
  const parts = header.split(',').map((p) => p.split('=', 2) as [string, string]);
  const t = parts.find(([k]) => k === 't')?.[1];
  const signatures = parts.filter(([k]) => k === 'v1').map(([, v]) => v);
  if (!t || !/^\d+$/.test(t) || signatures.length === 0) return false;
  if (Math.abs(nowMs / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${t}.${raw}`).digest();
  return signatures.some((hex) => {
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export interface Receiver {
  url: string;
  received: Received[];
  /** What the next requests are answered: a status (and headers). */
  answer: (status: number, headers?: Record<string, string>) => void;
  close(): Promise<void>;
}

export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const received: Received[] = [];
  let status = 204;
  let extra: Record<string, string> = {};
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw);
      } catch {}
      received.push({ headers: req.headers, raw, body });
      res.writeHead(status, extra).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/hooks?tenant=alpha`,
    received,
    answer: (s, h = {}) => {
      status = s;
      extra = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
