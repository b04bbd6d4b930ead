// The connector outbound webhooks connect through (src/net/checked-connector.ts): every address a name
// resolves to is judged, not only the first, and the connection goes to an address that was judged (the
// name is not resolved again by the socket). Real sockets and undici; only the resolver is injected.
import { once } from 'node:events';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AddressRefused,
  type CheckedConnectorOptions,
  checkedConnector,
  type LookupAll,
} from '../../src/net/checked-connector.ts';
import type { CheckedAddress } from '../../src/net/pinned-lookup.ts';

let listener: Server;
let port: number;
let connections = 0;
const sockets = new Set<Socket>();
beforeAll(async () => {
  listener = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.end('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n');
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  port = (listener.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => listener.close(() => resolve()));
});

const PUBLIC: CheckedAddress = { address: '93.184.215.14', family: 4 };
const PUBLIC_V6: CheckedAddress = { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 };
const LOOPBACK: CheckedAddress = { address: '127.0.0.1', family: 4 };
const PRIVATE: CheckedAddress = { address: '10.0.0.7', family: 4 };
const METADATA: CheckedAddress = { address: '169.254.169.254', family: 4 };

/** A resolver that answers these addresses for every name, and counts what it was asked. */
function resolver(addresses: readonly CheckedAddress[]) {
  const asked: string[] = [];
  const lookup: LookupAll = async (hostname) => {
    asked.push(hostname);
    return addresses;
  };
  return { asked, lookup };
}

/** What the connector answers for one connection to `hooks.test` (a name no real resolver knows). */
function connectThrough(options: CheckedConnectorOptions) {
  const connect = checkedConnector({ ...options, connect: { timeout: 2000 } });
  return new Promise<Error | null>((resolve) => {
    connect(
      { hostname: 'hooks.test', host: 'hooks.test', protocol: 'http:', port: String(port) },
      (err, socket) => {
        socket?.destroy();
        resolve(err);
      },
    );
  });
}

describe('a name that resolves to several addresses', () => {
  // [what, the resolver's answer in its order, the refusal]
  const rows: [string, CheckedAddress[], RegExp][] = [
    ['public, then loopback', [PUBLIC, LOOPBACK], /loopback address/],
    ['loopback, then public', [LOOPBACK, PUBLIC], /loopback address/],
    ['public, then private', [PUBLIC, PRIVATE], /private address/],
    ['private, then public', [PRIVATE, PUBLIC], /private address/],
    ['public v4 and v6, then the metadata address', [PUBLIC, PUBLIC_V6, METADATA], /link-local address/],
  ];

  it.each(rows)('%s: refused, nothing connected', async (_what, addresses, refusal) => {
    const before = connections;
    const { lookup } = resolver(addresses);
    const err = await connectThrough({ allowPrivateNetworks: false, lookup });
    expect(err).toBeInstanceOf(AddressRefused);
    expect(err?.message).toMatch(refusal);
    expect(connections).toBe(before);
  });
});

describe('the connection goes to a checked address', () => {
  it('resolves the name once per connection and connects where the resolver said, never asking DNS again', async () => {
    const { asked, lookup } = resolver([LOOPBACK]);
    // A private-network stack, so the listener on loopback may be reached; `hooks.test` resolves nowhere
    // else, so a socket that looked the name up again would fail.
    const agent = new Agent({ connect: checkedConnector({ allowPrivateNetworks: true, lookup }) });
    try {
      const before = connections;
      const answer = await request(`http://hooks.test:${port}/hook`, { dispatcher: agent });
      await answer.body.dump();
      expect(answer.statusCode).toBe(204);
      expect(connections).toBe(before + 1);
      expect(asked).toEqual(['hooks.test']);
    } finally {
      await agent.close();
    }
  });
});
