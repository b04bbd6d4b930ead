// `app vendor-double`: a vendor double to point an install at while trying the platform locally. It
// answers every request with what it received — method, path, query, headers and body — as JSON, and
// prints the same on one line per request (on stderr), so a newcomer sees what an app sent, the real
// secret values included, while the platform's answer shows them redacted. Runs until interrupted.
import type { Command } from 'commander';
import {
  startVendorDouble,
  type VendorDouble,
  type VendorRequest,
} from '../../packages/app-testing/src/index.ts';
import { AppUsageError } from './errors.ts';

/** The echo answer: what the double received. */
export function echoOf(request: VendorRequest) {
  return {
    received: {
      method: request.method,
      path: request.path,
      query: request.query,
      headers: request.headers,
      body: request.body,
    },
  };
}

export async function startEchoVendor(
  port: number,
  onRequest?: (request: VendorRequest) => void,
): Promise<VendorDouble> {
  return startVendorDouble(
    [
      {
        path: /.*/,
        respond: (request) => {
          onRequest?.(request);
          return { json: echoOf(request) };
        },
      },
    ],
    port,
  );
}

/** One line of what the vendor received, secrets as they arrived: `GET /path {"query":…,"headers":…,"body":…}`. */
export function receivedLine(request: VendorRequest): string {
  const { method, path, ...rest } = echoOf(request).received;
  return `${method} ${path} ${JSON.stringify(rest)}`;
}

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 0 || port > 65_535)
    throw new AppUsageError(`--port must be 0 to 65535, not ${text}`);
  return port;
}

export function registerVendorDouble(program: Command): void {
  program
    .command('vendor-double')
    .description('run a vendor double on 127.0.0.1 that echoes every request as JSON (until Ctrl-C)')
    .option('--port <port>', 'port to listen on (0: a free one)', '4010')
    .action(async (options: { port: string }) => {
      const vendor = await startEchoVendor(portOf(options.port), (request) =>
        process.stderr.write(`${new Date().toISOString()} ${receivedLine(request)}\n`),
      );
      process.stdout.write(`vendor double listening on ${vendor.url} (approve host ${vendor.host})\n`);
      const stop = () => void vendor.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
