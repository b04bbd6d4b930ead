// Every worker's sender (docs/outbound-webhooks.md "Delivery", "Fair sending"): claims due deliveries
// (skip-locked, so workers never take the same one; dealt fairly, so each tenant and each endpoint holds at
// most its share of the window), posts each signed to its endpoint, and writes outcomes in batches.
// Without SECRET_STORE_KEY nothing is claimed: deliveries wait.
import type { Logger } from 'pino';
import type { Database } from '../../db/pool.ts';
import { signingSecrets } from '../endpoints/endpoint-secrets.ts';
import { eventBody } from '../fan-out/event-body.ts';
import { DEFAULT_SENDER_LIMITS, type InFlight, type SenderLimits } from './claim-rules.ts';
import { type Claimed, type ClaimedEndpoint, claimDue } from './claim-store.ts';
import { type AttemptResult, recordAttempts } from './outcome-store.ts';
import type { DeliveryPoster } from './post.ts';

export interface SenderOptions {
  database: Database;
  logger: Logger;
  poster: DeliveryPoster;
  key: Buffer;
  /** The ladder's and the claim's clock (tests move it instead of waiting). */
  clock?: () => Date;
  /** The window and each tenant's and endpoint's share of it (DEFAULT_SENDER_LIMITS unless told). */
  limits?: SenderLimits;
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

/** What this sender has in flight, in all, by tenant and by endpoint: the claim's fair shares count it. */
class InFlightCounts implements InFlight {
  total = 0;
  readonly byTenant = new Map<string, number>();
  readonly byEndpoint = new Map<string, number>();

  add(delivery: Claimed, by = 1) {
    this.total += by;
    bump(this.byTenant, delivery.tenantId, by);
    bump(this.byEndpoint, delivery.endpointId, by);
  }

  remove(delivery: Claimed) {
    this.add(delivery, -1);
  }
}

function bump(counts: Map<string, number>, key: string, by: number) {
  const n = (counts.get(key) ?? 0) + by;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

export function startDeliverySender(options: SenderOptions): DeliverySender {
  const clock = options.clock ?? (() => new Date());
  const limits = options.limits ?? DEFAULT_SENDER_LIMITS;
  const idleMs = options.idleMs ?? 500;
  const log = options.logger.child({ part: 'outbound-webhooks' });
  let stopped = false;
  const inFlight = new InFlightCounts();
  let results: AttemptResult[] = [];
  let flushing: Promise<void> = Promise.resolve();
  let flushTimer: NodeJS.Timeout | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  let looking = false;
  /** A send ended while a claim was under way: its slot is free, and the claim did not count it free. */
  let freedWhileLooking = false;
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
        if (stopped && inFlight.total === 0 && results.length === 0) done();
      });
  };

  const finish = (delivery: Claimed, result: AttemptResult) => {
    results.push(result);
    inFlight.remove(delivery);
    if (looking) freedWhileLooking = true;
    if (!flushTimer) flushTimer = setTimeout(flush, RESULTS_FLUSH_MS);
    if (stopped && inFlight.total === 0) {
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
      inFlight.remove(delivery);
      return;
    }
    options.poster
      .post({
        url: endpoint.url,
        endpointId: endpoint.id,
        eventType: delivery.source.eventType,
        deliveryId: delivery.id,
        body: JSON.stringify(eventBody(delivery.source)),
        secrets,
      })
      .then((outcome) =>
        finish(delivery, {
          ...base,
          delivered: outcome.delivered,
          responseCode: outcome.responseCode,
          latencyMs: outcome.latencyMs,
          error: outcome.error ?? null,
          responseBody: outcome.responseBody,
        }),
      );
  };

  const look = () => {
    if (stopped || looking || inFlight.total >= limits.window) return;
    looking = true;
    freedWhileLooking = false;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    const room = limits.window - inFlight.total;
    claiming = claimDue(options.database, clock(), inFlight, limits)
      .then(({ claimed, endpoints }) => {
        // Claimed as the sender stopped: left to their lease, sent again by a sender once it runs out.
        if (stopped) return 0;
        for (const delivery of claimed) {
          const endpoint = endpoints.get(delivery.endpointId);
          if (!endpoint) continue;
          inFlight.add(delivery);
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
        // A full claim may have left more due, and a slot freed meanwhile may take one; a claim cut short by
        // the shares, with nothing freed, waits for a send to end.
        if (count >= room || freedWhileLooking) look();
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
      if (inFlight.total === 0) {
        if (flushTimer) clearTimeout(flushTimer);
        flush();
      }
      await drained;
      await flushing;
    },
  };
}
