// `platform webhooks listen`: a development receiver. Starts an HTTP listener on loopback, creates an
// outbound webhook endpoint aimed at it through the API (the stack needs WEBHOOK_ALLOW_PRIVATE_NETWORKS
// =true to deliver to http on loopback), prints each delivery with its signature verified as a tenant's
// receiver would (src/outbound-webhooks/sending/verify.ts), and deletes the endpoint when stopped. The api is
// found as every command finds it (api-url.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyDelivery } from '../outbound-webhooks/index.ts';
import { type ApiUrl, fetchApi } from './api-url.ts';
import { UsageError } from './usage.ts';

export interface ListenOptions {
  api: ApiUrl;
  token: string;
  events: string;
  port: string;
}

interface Out {
  write(text: string): unknown;
}

async function call(options: ListenOptions, method: string, path: string, body?: unknown) {
  const response = await fetchApi(options.api, path, {
    method,
    headers: {
      authorization: `Bearer ${options.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok)
    throw new UsageError(`${method} ${options.api.url}${path} answered ${response.status}: ${text}`);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}

/** Runs until `stop` resolves; resolves once the endpoint is deleted and the listener closed. */
export async function listen(options: ListenOptions, out: Out, stop: Promise<unknown>): Promise<void> {
  const events = options.events
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (events.length === 0) throw new UsageError('--events: one or more event types, comma separated');
  let secret = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const verdict = verifyDelivery(
        req.headers['x-service-signature'] as string | undefined,
        raw,
        secret,
        Date.now(),
      );
      res.writeHead(verdict.ok ? 204 : 400).end();
      const event = req.headers['x-service-event'];
      const delivery = req.headers['x-service-delivery'];
      out.write(
        `${verdict.ok ? 'verified' : `NOT VERIFIED (${verdict.reason})`} ${event} delivery ${delivery}\n${raw}\n`,
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(Number(options.port), '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const created = await call(options, 'POST', '/webhook-endpoints', {
      url: `http://127.0.0.1:${port}/`,
      description: 'platform webhooks listen',
      events,
    });
    secret = String(created.secret);
    out.write(
      `listening on http://127.0.0.1:${port}/ as endpoint ${created.id} for ${events.join(', ')}; Ctrl-C stops\n`,
    );
    await stop;
    await call(options, 'DELETE', `/webhook-endpoints/${created.id}`);
    out.write(`endpoint ${created.id} deleted\n`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
