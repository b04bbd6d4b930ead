// What a worker runs for outbound webhooks: the trail reader every two seconds (one worker's pass at a
// time, fan-out/fan-out-store.ts) and the sender (sending/sender.ts). Without SECRET_STORE_KEY the trail is still read, so no
// event is lost, and deliveries wait until a worker has the key.
import type { Logger } from 'pino';
import type { Database } from '../db/pool.ts';
import type { LookupAll } from '../net/checked-connector.ts';
import { type Background, schedulePasses, type Timer } from '../worker/schedule.ts';
import { type FanoutOptions, fanoutPass } from './fan-out/fan-out-store.ts';
import type { SenderLimits } from './sending/claim-rules.ts';
import { DeliveryPoster } from './sending/post.ts';
import { type DeliverySender, startDeliverySender } from './sending/sender.ts';

export const FANOUT_INTERVAL_MS = 2000;

export interface OutboundBackgroundOptions {
  database: Database;
  logger: Logger;
  secretStoreKey: Buffer | null;
  allowPrivateNetworks: boolean;
  fanoutIntervalMs?: number;
  fanout?: FanoutOptions;
  /** The sender's clock (the retry ladder); tests move it. */
  clock?: () => Date;
  lookup?: LookupAll;
  timer?: Timer;
  /** The sender's window and fair shares (docs/outbound-webhooks.md "Fair sending"). */
  limits?: SenderLimits;
  senderIdleMs?: number;
}

export interface OutboundBackground extends Background {
  sender: DeliverySender | null;
}

export function startOutboundWebhooks(options: OutboundBackgroundOptions): OutboundBackground {
  const log = options.logger.child({ part: 'outbound-webhooks' });
  const poster = options.secretStoreKey
    ? new DeliveryPoster({
        allowPrivateNetworks: options.allowPrivateNetworks,
        ...(options.lookup ? { lookup: options.lookup } : {}),
        ...(options.clock ? { now: () => (options.clock as () => Date)().getTime() } : {}),
        ...(options.limits ? { connectionsPerEndpoint: options.limits.perEndpoint } : {}),
      })
    : null;
  if (!options.secretStoreKey) log.warn('SECRET_STORE_KEY is not set: outbound webhook deliveries wait');
  const sender =
    poster && options.secretStoreKey
      ? startDeliverySender({
          database: options.database,
          logger: options.logger,
          poster,
          key: options.secretStoreKey,
          ...(options.clock ? { clock: options.clock } : {}),
          ...(options.limits ? { limits: options.limits } : {}),
          ...(options.senderIdleMs ? { idleMs: options.senderIdleMs } : {}),
        })
      : null;
  const fanout = schedulePasses({
    firstDelayMs: 0,
    intervalMs: options.fanoutIntervalMs ?? FANOUT_INTERVAL_MS,
    pass: async () => {
      // A capped pass leaves rows behind: read on until the range is whole.
      for (;;) {
        const result = await fanoutPass(options.database, options.fanout);
        if (result.ran && result.deliveries > 0) sender?.wake();
        if (!result.ran || !result.capped) return;
      }
    },
    onError: (error) => log.error({ err: error }, 'reading the audit trail for outbound webhooks failed'),
    ...(options.timer ? { timer: options.timer } : {}),
  });
  return {
    sender,
    async stop() {
      await fanout.stop();
      await sender?.stop();
      await poster?.close();
    },
  };
}
