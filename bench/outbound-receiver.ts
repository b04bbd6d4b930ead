// The receiver of bench/outbound.ts, in a process of its own so its CPU is reported apart: a plain node
// http server on 127.0.0.1 answering 204, as a tenant's receiver would. Endpoint i of the bench posts to
// /hooks/<i>; each delivery's signature is checked against that endpoint's secret (HMAC-SHA256 of
// "<t>.<raw body>", every v1 in constant time) and its arrival noted: the body's resource id (the run the
// bench raised the audit row for), its event id, the endpoint, and the wall clock in ms (fractional).
// Over IPC: `ready` with its port; the bench sends the secrets, then asks for what arrived since it last
// asked (and the CPU used so far).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** resource id, event id, endpoint index, arrival (epoch ms). */
export type Arrival = [string, string, number, number];

export type ReceiverQuestion = { kind: 'secrets'; secrets: string[] } | { kind: 'take' };
export type ReceiverMessage =
  | { kind: 'ready'; port: number }
  | { kind: 'secrets' }
  | { kind: 'taken'; arrivals: Arrival[]; badSignatures: number; cpuMs: number };

let secrets: Buffer[] = [];
let arrivals: Arrival[] = [];
let badSignatures = 0;

function verified(header: string | undefined, raw: Buffer, secret: Buffer | undefined): boolean {
  if (!header || !secret) return false;
  let t = '';
  const given: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (part.slice(0, at) === 't') t = part.slice(at + 1);
    else if (part.slice(0, at) === 'v1') given.push(part.slice(at + 1));
  }
  if (!/^\d+$/.test(t) || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(raw).digest();
  return given.some((hex) => {
    const bytes = Buffer.from(hex, 'hex');
    return bytes.length === expected.length && timingSafeEqual(bytes, expected);
  });
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const raw = Buffer.concat(chunks);
    const endpoint = Number(req.url?.split('/')[2]);
    if (!verified(req.headers['x-service-signature'] as string | undefined, raw, secrets[endpoint]))
      badSignatures += 1;
    try {
      const body = JSON.parse(raw.toString('utf8')) as { id: string; resource: { id: string } };
      arrivals.push([body.resource.id, body.id, endpoint, at]);
    } catch {
      badSignatures += 1;
    }
    res.writeHead(204).end();
  });
});

const send = (message: ReceiverMessage) => process.send?.(message);
process.on('message', (question: ReceiverQuestion) => {
  if (question.kind === 'secrets') {
    secrets = question.secrets.map((s) => Buffer.from(s, 'utf8'));
    send({ kind: 'secrets' });
    return;
  }
  const cpu = process.cpuUsage();
  const taken = arrivals;
  arrivals = [];
  send({ kind: 'taken', arrivals: taken, badSignatures, cpuMs: (cpu.user + cpu.system) / 1000 });
});
process.on('disconnect', () => process.exit(0));

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => send({ kind: 'ready', port: (server.address() as AddressInfo).port }));
