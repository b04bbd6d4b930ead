// Every worker's sender (docs/outbound-webhooks.md "Delivery", "Fair sending"). A delivery goes through it
// in five steps, in this order:
//   1. claimed with the others due now (claim-store.ts): skip-locked, so workers never take the same one,
//      and dealt fairly (claim-rules.ts), so each tenant and each endpoint holds at most its share of the
//      window this sender has in flight;
//   2. its endpoint's signing secrets opened with SECRET_STORE_KEY; a secret sealed under another key does
//      not open, and the delivery is left to its lease (due again once it runs out), nothing written;
//   3. its body built from the audit row it came from (event-body.ts): the same bytes at every attempt;
//   4. posted, signed now, to its endpoint (post.ts), which answers an outcome and never throws;
//   5. its outcome written with the attempt's record, in batches (outcome-store.ts, where the retry
//      ladder decides what a failure comes to); its slot is free, and the sender looks for more.
// Steps 2–4 are `attempt`, one delivery from claim to outcome. The rest is the loop around it: one claim at
// a time, the next at once while the last one filled the room it had (or a slot was freed during it), else
// after idleMs; stopping claims nothing more and resolves once every outcome is written. Without
// SECRET_STORE_KEY no sender is started (background.ts): deliveries wait.
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

/** How long the first outcome of a batch waits for others before the batch is written. */
const RESULTS_FLUSH_MS = 50;

interface AttemptDeps {
  key: Buffer;
  poster: DeliveryPoster;
  clock: () => Date;
  log: Logger;
}

/**
 * Steps 2–4 for one claimed delivery: its outcome once posted, or null at once (synchronously, so its
 * slot is free before the claim ends) when its endpoint's secrets do not open.
 */
export function attempt(
  deps: AttemptDeps,
  delivery: Claimed,
  endpoint: ClaimedEndpoint,
): Promise<AttemptResult> | null {
  const at = deps.clock();
  // 2.
  const secrets = signingSecrets(deps.key, endpoint, at);
  if (!secrets) {
    deps.log.warn({ endpointId: endpoint.id }, 'an endpoint secret does not open with SECRET_STORE_KEY');
    return null;
  }
  // 3.
  const body = JSON.stringify(eventBody(delivery.source));
  // 4.
  const eventType = delivery.source.eventType;
  const posted = deps.poster.post({
    url: endpoint.url,
    endpointId: endpoint.id,
    eventType,
    deliveryId: delivery.id,
    body,
    secrets,
  });
  return posted.then((outcome) => ({
    deliveryId: delivery.id,
    endpointId: delivery.endpointId,
    tenantId: delivery.source.tenantId,
    eventType,
    attemptsBefore: delivery.attempts,
    at,
    delivered: outcome.delivered,
    responseCode: outcome.responseCode,
    latencyMs: outcome.latencyMs,
    error: outcome.error ?? null,
    responseBody: outcome.responseBody,
  }));
}

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

/**
 * Step 5's batches: outcomes gathered for RESULTS_FLUSH_MS after the first of a batch (or written at once
 * when told), each batch written after the one before; `afterWrite` runs once each batch is written.
 */
class OutcomeBatches {
  private batch: AttemptResult[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (batch: AttemptResult[]) => Promise<void>,
    private readonly afterWrite: () => void,
  ) {}

  get empty(): boolean {
    return this.batch.length === 0;
  }

  add(result: AttemptResult) {
    this.batch.push(result);
    if (!this.timer) this.timer = setTimeout(() => this.writeNow(), RESULTS_FLUSH_MS);
  }

  writeNow() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.batch;
    this.batch = [];
    this.writes = this.writes.then(() => this.write(batch)).finally(this.afterWrite);
  }

  /** Resolves once every batch written so far is. */
  written(): Promise<void> {
    return this.writes;
  }
}

/**
 * Step 1's turns: one claim at a time. A send that ends during a claim frees a slot the claim did not count
 * free, so the claim is followed by another at once; `idle` is the wait before looking again.
 */
class ClaimTurns {
  underWay = false;
  freedDuring = false;
  last: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | null = null;

  begin() {
    this.underWay = true;
    this.freedDuring = false;
    this.stopWaiting();
  }

  waitIdle(look: () => void, idleMs: number) {
    if (!this.idle) this.idle = setTimeout(look, idleMs).unref();
  }

  stopWaiting() {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
  }
}

/** The loop around `attempt`: claims (step 1), sends, and writes outcomes (step 5) until stopped. */
class SenderLoop implements DeliverySender {
  private stopped = false;
  private readonly inFlight = new InFlightCounts();
  private readonly turns = new ClaimTurns();
  private readonly outcomes: OutcomeBatches;
  private readonly limits: SenderLimits;
  private readonly idleMs: number;
  private readonly deps: AttemptDeps;
  private readonly drained: Promise<void>;
  private done: () => void = () => {};

  constructor(private readonly options: SenderOptions) {
    this.limits = options.limits ?? DEFAULT_SENDER_LIMITS;
    this.idleMs = options.idleMs ?? 500;
    const log = options.logger.child({ part: 'outbound-webhooks' });
    this.deps = { key: options.key, poster: options.poster, clock: options.clock ?? (() => new Date()), log };
    this.drained = new Promise<void>((resolve) => {
      this.done = resolve;
    });
    this.outcomes = new OutcomeBatches(
      (batch) =>
        recordAttempts(options.database, batch).catch((error: unknown) =>
          log.error({ err: error, count: batch.length }, 'writing delivery outcomes failed'),
        ),
      () => {
        if (this.stopped && this.inFlight.total === 0 && this.outcomes.empty) this.done();
      },
    );
  }

  /** Step 1: claims what the window has room for, and sends each claimed delivery. */
  look = () => {
    if (this.stopped || this.turns.underWay || this.inFlight.total >= this.limits.window) return;
    this.turns.begin();
    const room = this.limits.window - this.inFlight.total;
    this.turns.last = claimDue(this.options.database, this.deps.clock(), this.inFlight, this.limits)
      .then(({ claimed, endpoints }) => {
        // Claimed as the sender stopped: left to their lease, sent again by a sender once it runs out.
        if (this.stopped) return 0;
        for (const delivery of claimed) {
          const endpoint = endpoints.get(delivery.endpointId);
          if (endpoint) this.send(delivery, endpoint);
        }
        return claimed.length;
      })
      .catch((error: unknown) => {
        this.deps.log.error({ err: error }, 'claiming due deliveries failed');
        return 0;
      })
      .then((count) => this.afterClaim(count >= room));
  };

  /** A full claim may have left more due, and a slot freed meanwhile may take one; else wait. */
  private afterClaim(full: boolean) {
    this.turns.underWay = false;
    if (this.stopped) return;
    // A claim cut short by the shares, with nothing freed, waits for a send to end.
    if (full || this.turns.freedDuring) this.look();
    else this.turns.waitIdle(this.look, this.idleMs);
  }

  /** Steps 2–4 in flight, then step 5. */
  private send(delivery: Claimed, endpoint: ClaimedEndpoint) {
    this.inFlight.add(delivery);
    const result = attempt(this.deps, delivery, endpoint);
    if (result) result.then((outcome) => this.finish(delivery, outcome));
    else this.inFlight.remove(delivery);
  }

  /** Step 5: the outcome joins a batch, the slot is free; the last one in flight after a stop writes at once. */
  private finish(delivery: Claimed, outcome: AttemptResult) {
    this.outcomes.add(outcome);
    this.inFlight.remove(delivery);
    if (this.turns.underWay) this.turns.freedDuring = true;
    if (this.stopped && this.inFlight.total === 0) this.outcomes.writeNow();
    else this.look();
  }

  wake() {
    this.look();
  }

  async stop() {
    this.stopped = true;
    this.turns.stopWaiting();
    await this.turns.last;
    if (this.inFlight.total === 0) this.outcomes.writeNow();
    await this.drained;
    await this.outcomes.written();
  }
}

export function startDeliverySender(options: SenderOptions): DeliverySender {
  const sender = new SenderLoop(options);
  sender.look();
  return { wake: () => sender.wake(), stop: () => sender.stop() };
}
