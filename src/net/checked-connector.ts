// An undici connector that resolves the name of every new connection, judges each address it resolves
// to (addresses.ts), and connects only to those checked addresses (pinned-lookup.ts). For senders that
// aim at addresses tenants type in (outbound webhooks): a name resolving to a private address is refused
// at connection, whatever was checked when the URL was saved.
import dns from 'node:dns/promises';
import { buildConnector } from 'undici';
import { addressRefusal, parseIPv4, parseIPv6 } from './addresses.ts';
import { isLocalhostName } from './names.ts';
import { type CheckedAddress, pinnedLookup } from './pinned-lookup.ts';

export type LookupAll = (hostname: string) => Promise<readonly CheckedAddress[]>;

export const systemLookup: LookupAll = (hostname) => dns.lookup(hostname, { all: true });

/** Why a connection was not made; `code` lets callers tell it from network errors. */
export class AddressRefused extends Error {
  readonly code = 'ADDRESS_REFUSED';
}

export interface CheckedConnectorOptions {
  allowPrivateNetworks: boolean;
  lookup?: LookupAll;
  /** Passed to undici's connector (timeouts, TLS options). */
  connect?: buildConnector.BuildOptions;
}

/** The addresses behind a host: a literal is its own; a name goes to the resolver. */
async function resolve(hostname: string, lookup: LookupAll): Promise<readonly CheckedAddress[]> {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (parseIPv4(bare) !== null) return [{ address: bare, family: 4 }];
  if (parseIPv6(bare) !== null) return [{ address: bare, family: 6 }];
  return lookup(bare);
}

/** The refusal of a host's addresses, or null when every one of them may be reached. */
export function refusalOf(
  hostname: string,
  addresses: readonly CheckedAddress[],
  allowPrivateNetworks: boolean,
): string | null {
  if (!allowPrivateNetworks && isLocalhostName(hostname)) return 'the host is local';
  if (addresses.length === 0) return 'the host has no address';
  for (const { address } of addresses) {
    const kind = addressRefusal(address, allowPrivateNetworks);
    if (kind) return `the host resolves to a ${kind} address`;
  }
  return null;
}

export function checkedConnector(options: CheckedConnectorOptions): buildConnector.connector {
  const lookup = options.lookup ?? systemLookup;
  return (connectOptions, callback) => {
    resolve(connectOptions.hostname, lookup).then(
      (addresses) => {
        const refusal = refusalOf(connectOptions.hostname, addresses, options.allowPrivateNetworks);
        if (refusal) return callback(new AddressRefused(refusal), null);
        const connect = buildConnector({
          ...options.connect,
          lookup: pinnedLookup(addresses),
        } as buildConnector.BuildOptions);
        connect(connectOptions, callback);
      },
      (err: NodeJS.ErrnoException) =>
        callback(Object.assign(new Error(`could not resolve the host: ${err.code ?? err.message}`)), null),
    );
  };
}
