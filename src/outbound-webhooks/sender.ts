// Every worker's sender (docs/outbound-webhooks.md "Delivery"): claims due deliveries (skip-locked, so
// workers never take the same one), posts each signed to its endpoint with up to `concurrency` in flight,
// and writes outcomes in batches. Without SECRET_STORE_KEY nothing is claimed: deliveries wait.
import type { Logger } from 'pino';
import type { Database } from '../db/pool.ts';
import {
  type AttemptResult,
  type Claimed,
  type ClaimedEndpoint,
  claimDue,
  recordAttempts,
} from './delivery-store.ts';
import { signingSecrets } from './endpoint-secrets.ts';
import { eventBody } from './event-body.ts';
import type { DeliveryPoster } from './post.ts';

export interface SenderOptions {
  database: Database;
  logger: Logger;
  poster: DeliveryPoster;
  key: Buffer;
  /** The ladder's and the claim's clock (tests move it instead of waiting). */
  clock?: () => Date;
  /** Deliveries in flight at most. */
  concurrency?: number;
  /** How long an idle sender waits before looking again. */
  idleMs?: number;
}

export interface DeliverySender {
  /** Looks for due deliveries now (a test, or a pass that just queued some). */
  wake(): void;
  /** Claims nothing more; resolves once those in flight are written. */
  stop(): Promise<void>;
}

const RESULTS_FLUSH_MS = 50;

export function startDeliverySender(options: SenderOptions): DeliverySender {
  const clock = options.clock ?? (() => new Date());
  const concurrency = options.concurrency ?? 64;
  const idleMs = options.idleMs ?? 500;
  const log = options.logger.child({ part: 'outbound-webhooks' });
  let stopped = false;
  let inFlight = 0;
  let results: AttemptResult[] = [];
  let flushing: Promise<void> = Promise.resolve();
  let flushTimer: NodeJS.Timeout | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  let looking = false;
  let claiming: Promise<unknown> = Promise.resolve();
  let done: () => void = () => {};
  const drained = new Promise<void>((resolve) => {
    done = resolve;
  });

  const flush = () => {
    flushTimer = null;
    const batch = results;
    results = [];
    flushing = flushing
      .then(() => recordAttempts(options.database, batch))
      .catch((error: unknown) =>
        log.error({ err: error, count: batch.length }, 'writing delivery outcomes failed'),
      )
      .finally(() => {
        if (stopped && inFlight === 0 && results.length === 0) done();
      });
  };

  const finish = (result: AttemptResult) => {
    results.push(result);
    inFlight -= 1;
    if (!flushTimer) flushTimer = setTimeout(flush, RESULTS_FLUSH_MS);
    if (stopped && inFlight === 0) {
      if (flushTimer) clearTimeout(flushTimer);
      flush();
    } else look();
  };

  const send = (delivery: Claimed, endpoint: ClaimedEndpoint) => {
    const at = clock();
    const secrets = signingSecrets(options.key, endpoint, at);
    const base = {
      deliveryId: delivery.id,
      endpointId: delivery.endpointId,
      tenantId: delivery.source.tenantId,
      eventType: delivery.source.eventType,
      attemptsBefore: delivery.attempts,
      at,
    };
    if (!secrets) {
      // Another key than the one it was sealed with: the lease runs out and it is due again.
      log.warn({ endpointId: endpoint.id }, 'an endpoint secret does not open with SECRET_STORE_KEY');
      inFlight -= 1;
      return;
    }
    options.poster
      .post({
        url: endpoint.url,
        eventType: delivery.source.eventType,
        deliveryId: delivery.id,
        body: JSON.stringify(eventBody(delivery.source)),
        secrets,
      })
      .then((outcome) =>
        finish({
          ...base,
          delivered: outcome.delivered,
          responseCode: outcome.responseCode,
          latencyMs: outcome.latencyMs,
          error: outcome.error ?? null,
        }),
      );
  };

  const look = () => {
    if (stopped || looking || inFlight >= concurrency) return;
    looking = true;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    const room = concurrency - inFlight;
    claiming = claimDue(options.database, clock(), room)
      .then(({ claimed, endpoints }) => {
        // Claimed as the sender stopped: left to their lease, sent again by a sender once it runs out.
        if (stopped) return 0;
        for (const delivery of claimed) {
          const endpoint = endpoints.get(delivery.endpointId);
          if (!endpoint) continue;
          inFlight += 1;
          send(delivery, endpoint);
        }
        return claimed.length;
      })
      .catch((error: unknown) => {
        log.error({ err: error }, 'claiming due deliveries failed');
        return 0;
      })
      .then((count) => {
        looking = false;
        if (stopped) return;
        if (count >= room) look();
        else if (!idleTimer) idleTimer = setTimeout(look, idleMs).unref();
      });
  };

  look();
  return {
    wake: look,
    async stop() {
      stopped = true;
      if (idleTimer) clearTimeout(idleTimer);
      await claiming;
      if (inFlight === 0) {
        if (flushTimer) clearTimeout(flushTimer);
        flush();
      }
      await drained;
      await flushing;
    },
  };
}
