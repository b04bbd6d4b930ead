// The service.* instruments (catalogue.ts) and the small functions the platform records through.
// @opentelemetry/api's global meter does not proxy: an instrument made before the SDK registers its
// meter provider stays a no-op forever. So the instruments are made on first use, and made again when
// the global provider changes (a process, a test or the benchmark starting or stopping telemetry). With
// telemetry off every call lands on the API's no-op meter, and nothing is looked up for labels.
import {
  type Attributes,
  type Counter,
  type Histogram,
  type Meter,
  type MeterProvider,
  metrics,
  type UpDownCounter,
} from '@opentelemetry/api';
import { MeterProvider as SdkMeterProvider } from '@opentelemetry/sdk-metrics';
import {
  type CacheOp,
  type FallbackReason,
  type MetricSpec,
  SERVICE_METRICS,
  type ServiceMetricName,
  type UpgradeOutcome,
  type WebhookResult,
} from './catalogue.ts';
import { type InvocationLabels, invocationLabels } from './metric-labels.ts';

export const METER_NAME = 'apps-platform';

type Instrument = Histogram | Counter | UpDownCounter;

interface Bound {
  provider: MeterProvider;
  meter: Meter;
  instruments: Map<ServiceMetricName, Instrument>;
}

let bound: Bound | null = null;

/** The meter of the global provider now, with its instruments; made again when the provider changed. */
function current(): Bound {
  const provider = metrics.getMeterProvider();
  if (bound?.provider === provider) return bound;
  const meter = provider.getMeter(METER_NAME);
  const instruments = new Map<ServiceMetricName, Instrument>();
  for (const spec of SERVICE_METRICS as readonly MetricSpec[]) {
    const made = instrumentOf(meter, spec);
    if (made) instruments.set(spec.name as ServiceMetricName, made);
  }
  bound = { provider, meter, instruments };
  return bound;
}

/** The synchronous instrument of a spec, its starting series at zero; gauges are observed elsewhere. */
function instrumentOf(meter: Meter, spec: MetricSpec): Instrument | null {
  const options = { description: spec.description, ...(spec.unit ? { unit: spec.unit } : {}) };
  if (spec.kind === 'histogram') return meter.createHistogram(spec.name, options);
  if (spec.kind === 'gauge') return null;
  const made =
    spec.kind === 'counter'
      ? meter.createCounter(spec.name, options)
      : meter.createUpDownCounter(spec.name, options);
  for (const labels of startingSeries(spec)) made.add(0, labels);
  return made;
}

/** The series a counter starts with: one per value of its bounded label, or the unlabelled one. Pure. */
export function startingSeries(spec: Pick<MetricSpec, 'labels' | 'startAt'>): Attributes[] {
  if (spec.labels.length === 0) return [{}];
  const [key, values] = Object.entries(spec.startAt ?? {})[0] ?? [];
  return key && values ? values.map((value) => ({ [key]: value })) : [];
}

/** One recording of a service.* instrument, made in the runner child and recorded by its parent. */
export interface ForwardedRecording {
  name: ServiceMetricName;
  value: number;
  attributes?: Attributes;
}

let forwardTo: ((recording: ForwardedRecording) => void) | null = null;

/**
 * The runner child of `platform start --role all` (src/cli/runner-child.ts) records nothing itself: its
 * recordings go to the parent, whose /metrics and OTLP push are the service's. Null records here again.
 */
export function forwardMetrics(send: ((recording: ForwardedRecording) => void) | null): void {
  forwardTo = send;
}

/** Records a recording the runner child forwarded, on this process's instrument of the same name. */
export function recordForwarded({ name, value, attributes }: ForwardedRecording): void {
  const instrument = current().instruments.get(name);
  if (!instrument || typeof value !== 'number') return;
  if ('record' in instrument) instrument.record(value, attributes);
  else instrument.add(value, attributes);
}

/** An instrument of `name` that forwards each recording. */
function forwarder(name: ServiceMetricName) {
  const send = (value: number, attributes?: Attributes) => forwardTo?.({ name, value, attributes });
  return { add: send, record: send };
}

/** Whether metrics are recorded (or forwarded) from this process: label look-ups are skipped otherwise. */
export const metricsOn = (): boolean =>
  forwardTo !== null || metrics.getMeterProvider() instanceof SdkMeterProvider;

/** The meter of this process now, for observable gauges (database-gauges.ts). */
export const meterNow = (): Meter => current().meter;

const instrument = (name: ServiceMetricName) =>
  forwardTo ? forwarder(name) : current().instruments.get(name);
const histogram = (name: ServiceMetricName) => instrument(name) as Histogram;
const counter = (name: ServiceMetricName) => instrument(name) as Counter;
const updown = (name: ServiceMetricName) => instrument(name) as UpDownCounter;

export function recordInvocation(labels: InvocationLabels, durationMs: number): void {
  histogram('service.app.invocation.duration').record(durationMs, invocationLabels(labels));
}

export const recordRuleEvaluation = (ms: number) => histogram('service.rule.evaluation.duration').record(ms);
export const recordRuleSetEvaluation = (ms: number) =>
  histogram('service.rule_set.evaluation.duration').record(ms);
export const countDecision = () => counter('service.decision.count').add(1);
export const recordRunDuration = (ms: number) => histogram('service.workflow.run.duration').record(ms);
export const recordCallbackWait = (ms: number) =>
  histogram('service.app.callback.wait').record(Math.max(0, ms));
export const recordAppCall = (ms: number) => histogram('service.app.call.duration').record(ms);
export const countCacheOperation = (op: CacheOp) => counter('service.app.cache.operations').add(1, { op });
export const countUpgrade = (outcome: UpgradeOutcome) =>
  counter('service.app.auto_upgrade.count').add(1, { outcome });
export const countFallback = (reason: FallbackReason) =>
  counter('service.app.fallback.count').add(1, { reason });
export const countQuotaRefusal = () => counter('service.app.quota.refused').add(1);
export const countWebhook = (result: WebhookResult) => counter('service.app.webhooks').add(1, { result });
export const countDocumentProcessed = () => counter('service.document.processed.count').add(1);
export const countRetentionDeleted = (rows: number) => counter('service.retention.deleted').add(rows);

/** One model request: its time, and the tokens the vendor said it used. */
export function recordAiRequest(durationMs: number, tokens: number): void {
  counter('service.app.ai.requests').add(1);
  if (tokens > 0) counter('service.app.ai.tokens').add(tokens);
  histogram('service.app.ai.duration').record(durationMs);
}

/** Runs `work` counted in service.app.calls.in_flight while it runs. */
export const inFlight = <T>(work: () => Promise<T>): Promise<T> =>
  countedWhile('service.app.calls.in_flight', work);

/** Runs `work` (a run's workflow) counted in service.workflow.run.active while it runs. */
export const activeRun = <T>(work: () => Promise<T>): Promise<T> =>
  countedWhile('service.workflow.run.active', work);

/** Runs `work` with the up-down counter `name` one higher while it runs. */
async function countedWhile<T>(name: ServiceMetricName, work: () => Promise<T>): Promise<T> {
  const gauge = updown(name);
  gauge.add(1);
  try {
    return await work();
  } finally {
    gauge.add(-1);
  }
}

/** Milliseconds since a `performance.now()` reading, for the recorders above. */
export const msSince = (started: number): number => performance.now() - started;
