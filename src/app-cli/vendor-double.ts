// `app vendor-double`: a vendor double to point an install at while trying the platform locally. It
// answers every request with what it received — method, path, query, headers and body — as JSON, and
// prints the same on one line per request (on stderr), so a newcomer sees what an app sent, the real
// secret values included, while the platform's answer shows them redacted. Runs until interrupted.
// `POST /__double/outage` switches it into an outage (a line says so) to show an install's circuit
// opening; `DELETE /__double/outage` ends it. `--idv` plays a hosted identity-verification vendor instead
// (idv-double.ts).
import type { Command } from 'commander';
// The package's own modules, not its index: the index brings the test harness (the runner, esbuild,
// Drizzle), 0.8 s of CPU that a vendor double's start never needs.
import {
  startVendorDouble,
  type VendorDouble,
  type VendorDoubleOptions,
  type VendorRequest,
} from '../../packages/app-testing/src/vendor-double.ts';
import { OUTAGE_ROUTE, type VendorOutage } from '../../packages/app-testing/src/vendor-outage.ts';
import { AppUsageError } from './errors.ts';
import { DECIDE_ROUTE, startIdvVendor } from './idv-double.ts';

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
  tell: Pick<VendorDoubleOptions, 'onRequest' | 'onOutage'> = {},
): Promise<VendorDouble> {
  return startVendorDouble([{ path: /.*/, respond: (request) => ({ json: echoOf(request) }) }], {
    port,
    ...tell,
  });
}

/**
 * One line of what the vendor received, secrets as they arrived: `GET /path {"query":…,"headers":…,"body":…}`,
 * followed by `(outage unavailable)` when an outage answered it instead of the echo.
 */
export function receivedLine(request: VendorRequest): string {
  const { method, path, ...rest } = echoOf(request).received;
  const outage = request.outage ? ` (outage ${request.outage})` : '';
  return `${method} ${path} ${JSON.stringify(rest)}${outage}`;
}

/** The line printed when the outage switches. */
export function outageLine(outage: VendorOutage | null): string {
  if (!outage) return 'outage over: echoing every request again';
  const until = `until DELETE ${OUTAGE_ROUTE}`;
  switch (outage.mode) {
    case 'unavailable': {
      const retry =
        outage.retryAfterSeconds === undefined ? '' : ` with Retry-After ${outage.retryAfterSeconds}`;
      return `outage unavailable: every request answers ${outage.status}${retry} ${until}`;
    }
    case 'timeout': {
      const release = outage.holdMs === undefined ? '' : ` (each answers 504 after ${outage.holdMs} ms)`;
      return `outage timeout: every request is held unanswered${release} ${until}`;
    }
    case 'final':
      return `outage final: every request answers ${outage.status} ${until}`;
  }
}

/** A `--port` value: 0 to 65535 (0 takes a free port). */
export function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 0 || port > 65_535)
    throw new AppUsageError(`--port must be 0 to 65535, not ${text}`);
  return port;
}

interface VendorDoubleFlags {
  port: string;
  idv?: boolean;
  webhookSecret?: string;
  apiKey?: string;
}

export function registerVendorDouble(program: Command): void {
  program
    .command('vendor-double')
    .description(
      `run a vendor double on 127.0.0.1 that echoes every request as JSON (until Ctrl-C); ` +
        `POST ${OUTAGE_ROUTE} {"mode":"unavailable"|"timeout"|"final"} switches an outage on, DELETE ends it. ` +
        `With --idv it plays a hosted identity-verification vendor instead (the sessions API of the ` +
        `identity-verification app): POST ${DECIDE_ROUTE} {"decision":"approved"|"declined"} sends the signed webhook. ` +
        `A decide body takes decision, status (approved, declined, review, pending, error, expired, cancelled), ` +
        `reasons, error (the vendor's words on a failed status) and eventId: each webhook is event ` +
        `evt_<session>_<n> unless eventId names one, so the same eventId again is the same event redelivered`,
    )
    .option('--port <port>', 'port to listen on (0: a free one)', '4010')
    .option('--idv', 'play a hosted identity-verification vendor')
    .option(
      '--webhook-secret <secret>',
      'with --idv: the secret its webhooks are signed with (the install’s WEBHOOK_SECRET)',
    )
    .option(
      '--api-key <key>',
      'with --idv: refuse vendor requests without Authorization: Bearer <key> (default: any key)',
    )
    .action(async (flags: VendorDoubleFlags) => {
      const port = portOf(flags.port);
      const print = (line: string) => process.stderr.write(`${new Date().toISOString()} ${line}\n`);
      const onOutage = (outage: VendorOutage | null) => print(outageLine(outage));
      let vendor: { url: string; host: string; close(): Promise<void> };
      if (flags.idv) {
        if (!flags.webhookSecret) throw new AppUsageError('--idv needs --webhook-secret <secret>');
        vendor = await startIdvVendor({
          port,
          webhookSecret: flags.webhookSecret,
          apiKey: flags.apiKey ?? null,
          print,
          onOutage,
        });
      } else {
        if (flags.webhookSecret !== undefined || flags.apiKey !== undefined)
          throw new AppUsageError('--webhook-secret and --api-key go with --idv');
        vendor = await startEchoVendor(port, {
          onRequest: (request) => print(receivedLine(request)),
          onOutage,
        });
      }
      // Handlers before the line: whoever waits for it may signal at once, before a later line ran.
      const stop = () => void vendor.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const kind = flags.idv ? 'identity-verification vendor double' : 'vendor double';
      process.stdout.write(`${kind} listening on ${vendor.url} (approve host ${vendor.host})\n`);
    });
}
