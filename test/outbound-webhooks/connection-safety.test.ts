// Where a delivery may go (docs/outbound-webhooks.md): a name resolving to a refused address is refused at
// connection, and so is an address literal saved before the rules or by a development stack — zero
// bytes reach a listener there. And the secrets that sign: during the 24 hours after a rotation a
// receiver knowing only the old secret and one knowing only the new both verify; after it, only the new.

import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  sealEndpointSecret,
  signingSecrets,
} from '../../src/outbound-webhooks/endpoints/endpoint-secrets.ts';
import { DeliveryPoster } from '../../src/outbound-webhooks/sending/post.ts';
import { newSigningSecret } from '../../src/outbound-webhooks/sending/signing.ts';
import { startReceiver, verifySignature } from './receiver.ts';
import { KEY } from './rows.ts';

let listener: Server;
let port: number;
let connections = 0;
let bytes = 0;
beforeAll(async () => {
  listener = createServer((socket) => {
    connections += 1;
    socket.on('data', (chunk) => {
      bytes += chunk.length;
    });
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

const message = (url: string) => ({
  url,
  endpointId: 'e-1',
  eventType: 'ping',
  deliveryId: 'd-1',
  body: '{}',
  secrets: ['whsec_test'],
});

describe('refused at connection', () => {
  const cases: [string, string, string][] = [
    [
      'a name resolving to 127.0.0.1',
      'https://internal.test:PORT/hook',
      'refused: the host resolves to a loopback address',
    ],
    ['127.0.0.1', 'https://127.0.0.1:PORT/hook', 'refused: the host resolves to a loopback address'],
    ['[::1]', 'https://[::1]:PORT/hook', 'refused: the host resolves to a loopback address'],
    [
      '169.254.169.254',
      'https://169.254.169.254/latest/meta-data',
      'refused: the host resolves to a link-local address',
    ],
    ['10.0.0.1', 'https://10.0.0.1/hook', 'refused: the host resolves to a private address'],
    ['a NAT64 address', 'https://[64:ff9b::7f00:1]:PORT/', 'refused: the host resolves to a nat64 address'],
    ['a 6to4 address', 'https://[2002:7f00:1::1]:PORT/', 'refused: the host resolves to a 6to4 address'],
    ['localhost', 'https://localhost:PORT/hook', 'refused: the host is local'],
    ['http without the development setting', 'http://hooks.example.com/', 'the endpoint URL must use https'],
  ];
  for (const [what, template, error] of cases) {
    it(`refuses ${what}`, async () => {
      const lookups: string[] = [];
      const poster = new DeliveryPoster({
        allowPrivateNetworks: false,
        lookup: async (name) => {
          lookups.push(name);
          return [{ address: '127.0.0.1', family: 4 }];
        },
      });
      try {
        const result = await poster.post(message(template.replace('PORT', String(port))));
        expect(result).toEqual({
          delivered: false,
          responseCode: null,
          latencyMs: expect.any(Number),
          error,
          responseBody: null,
        });
      } finally {
        await poster.close();
      }
      expect(connections).toBe(0);
      expect(bytes).toBe(0);
    });
  }

  it('reaches a private address only on a development stack (WEBHOOK_ALLOW_PRIVATE_NETWORKS)', async () => {
    const receiver = await startReceiver();
    const poster = new DeliveryPoster({ allowPrivateNetworks: true });
    try {
      const result = await poster.post(message(receiver.url));
      expect(result).toMatchObject({ delivered: true, responseCode: 204 });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await poster.close();
      await receiver.close();
    }
  });
});

describe('secrets after a rotation', () => {
  it('signs with both for 24 hours, then with the new one only', async () => {
    const tenantId = '00000000-0000-4000-8000-00000000000a';
    const id = '00000000-0000-4000-8000-00000000000b';
    const before = newSigningSecret();
    const after = newSigningSecret();
    const rotatedAt = new Date('2030-01-01T00:00:00Z');
    const endpoint = {
      tenantId,
      id,
      secretSealed: sealEndpointSecret(KEY, tenantId, id, after),
      previousSecretSealed: sealEndpointSecret(KEY, tenantId, id, before),
      previousSecretUntil: new Date(rotatedAt.getTime() + 86_400_000),
    };
    const receiver = await startReceiver();
    try {
      for (const [at, oldVerifies] of [
        [new Date(rotatedAt.getTime() + 3_600_000), true],
        [new Date(rotatedAt.getTime() + 86_400_000 + 1), false],
      ] as const) {
        const secrets = signingSecrets(KEY, endpoint, at);
        const poster = new DeliveryPoster({ allowPrivateNetworks: true, now: () => at.getTime() });
        await poster.post({ ...message(receiver.url), secrets: secrets ?? [] });
        await poster.close();
        const got = receiver.received.at(-1);
        const header = got?.headers['x-service-signature'] as string;
        expect(header.match(/v1=/g)).toHaveLength(oldVerifies ? 2 : 1);
        expect(verifySignature(header, got?.body ?? '', after, at.getTime())).toBe(true);
        expect(verifySignature(header, got?.body ?? '', before, at.getTime())).toBe(oldVerifies);
        // A receiver whose clock is more than five minutes off refuses it.
        expect(verifySignature(header, got?.body ?? '', after, at.getTime() + 301_000)).toBe(false);
      }
      // Sealed for another endpoint: does not open, so nothing is signed with it.
      expect(signingSecrets(KEY, { ...endpoint, id: tenantId }, rotatedAt)).toBeNull();
    } finally {
      await receiver.close();
    }
  });
});
