// Every service.* metric (docs/telemetry.md "Metrics"): its instrument, unit, label keys and the label
// values it starts with. The catalogue is data: the instruments (metrics.ts), the docs and the tests read
// the same table. Durations are in milliseconds throughout. Keys and ids are never labels: tenant and
// install are named by their names (metric-labels.ts).

export type MetricKind = 'histogram' | 'counter' | 'updown' | 'gauge';

export interface MetricSpec {
  name: string;
  kind: MetricKind;
  unit?: string;
  description: string;
  /** The label keys, in the order the specification lists them; none for most. */
  labels: readonly string[];
  /**
   * A bounded label's values, each started at zero so the series exist before the first event (a counter
   * without labels starts at zero too). Histograms start with no series: a duration has no zero.
   */
  startAt?: Record<string, readonly string[]>;
}

export const INVOCATION_STATUSES = ['success', 'error', 'timeout', 'pending'] as const;
export const CACHE_OPS = ['hit', 'miss', 'set', 'delete'] as const;
export const UPGRADE_OUTCOMES = ['applied', 'held'] as const;
export const FALLBACK_REASONS = ['circuit_open', 'outage'] as const;
export const WEBHOOK_RESULTS = [
  'refused',
  'rejected',
  'error',
  'ignored',
  'duplicate',
  'accepted',
  'stale',
  'completed',
  'failed',
] as const;
export const CIRCUIT_STATES = ['open', 'half_open'] as const;
export const APPROVAL_KINDS = ['app_version', 'app_install_change', 'app_version_review'] as const;

export type InvocationStatus = (typeof INVOCATION_STATUSES)[number];
export type CacheOp = (typeof CACHE_OPS)[number];
export type UpgradeOutcome = (typeof UPGRADE_OUTCOMES)[number];
export type FallbackReason = (typeof FALLBACK_REASONS)[number];
export type WebhookResult = (typeof WEBHOOK_RESULTS)[number];
export type CircuitGaugeState = (typeof CIRCUIT_STATES)[number];
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];

const ms = 'ms';

export const SERVICE_METRICS = [
  {
    name: 'service.rule.evaluation.duration',
    kind: 'histogram',
    unit: ms,
    description: 'One rule of a rule set evaluated',
    labels: [],
  },
  {
    name: 'service.rule_set.evaluation.duration',
    kind: 'histogram',
    unit: ms,
    description: 'One rule set evaluated, every rule',
    labels: [],
  },
  {
    name: 'service.decision.count',
    kind: 'counter',
    description: 'Decisions emitted by decide steps',
    labels: [],
  },
  {
    name: 'service.workflow.run.duration',
    kind: 'histogram',
    unit: ms,
    description: 'A run from its start to its end (completed, failed or cancelled)',
    labels: [],
  },
  {
    name: 'service.workflow.run.active',
    kind: 'updown',
    description: 'Run workflows executing in this process now',
    labels: [],
  },
  {
    name: 'service.app.invocation.duration',
    kind: 'histogram',
    unit: ms,
    description: 'One attempt a runner took, by how it ended',
    labels: ['tenant', 'app', 'install', 'action', 'status'],
  },
  {
    name: 'service.app.callback.wait',
    kind: 'histogram',
    unit: ms,
    description: 'A vendor session from its opening to its settling or timing out',
    labels: [],
  },
  {
    name: 'service.app.call.duration',
    kind: 'histogram',
    unit: ms,
    description: 'One app call of a step or rule: every attempt, wait and fallback',
    labels: [],
  },
  {
    name: 'service.app.calls.in_flight',
    kind: 'updown',
    description: 'Attempts sent to a runner and not answered yet, in this process',
    labels: [],
  },
  {
    name: 'service.app.cache.operations',
    kind: 'counter',
    description: "Modules' cache operations",
    labels: ['op'],
    startAt: { op: CACHE_OPS },
  },
  {
    name: 'service.app.ai.requests',
    kind: 'counter',
    description: 'Model requests sent to model vendors',
    labels: [],
  },
  {
    name: 'service.app.ai.tokens',
    kind: 'counter',
    description: 'Model tokens used, input and output',
    labels: [],
  },
  {
    name: 'service.app.ai.duration',
    kind: 'histogram',
    unit: ms,
    description: 'One model request, sent to answered',
    labels: [],
  },
  {
    name: 'service.app.auto_upgrade.count',
    kind: 'counter',
    description: 'Automatic upgrades applied, or held for approval',
    labels: ['outcome'],
    startAt: { outcome: UPGRADE_OUTCOMES },
  },
  {
    name: 'service.app.fallback.count',
    kind: 'counter',
    description: 'Calls handed to their fallback install',
    labels: ['reason'],
    startAt: { reason: FALLBACK_REASONS },
  },
  {
    name: 'service.app.quota.refused',
    kind: 'counter',
    description: 'Attempts refused by a quota or budget (429 app_quota_exceeded)',
    labels: [],
  },
  {
    name: 'service.app.webhooks',
    kind: 'counter',
    description: 'Vendor webhooks received, by what they came to',
    labels: ['result'],
    startAt: { result: WEBHOOK_RESULTS },
  },
  {
    name: 'service.app.circuit.open',
    kind: 'gauge',
    description: 'Installs whose circuit is open or half open',
    labels: ['state'],
  },
  {
    name: 'service.app.quota.used',
    kind: 'gauge',
    description: 'The largest share (0 to 1) of any tenant quota used in its current period',
    labels: [],
  },
  {
    name: 'service.case.open',
    kind: 'gauge',
    description: 'Open cases (none on this platform: always 0)',
    labels: [],
  },
  {
    name: 'service.case.time_to_decision',
    kind: 'histogram',
    unit: ms,
    description: 'A case opened to decided (none on this platform)',
    labels: [],
  },
  {
    name: 'service.approval.pending',
    kind: 'gauge',
    description: 'Approvals waiting for a decision',
    labels: ['kind'],
  },
  {
    name: 'service.document.pending',
    kind: 'gauge',
    description: 'Documents waiting for their check',
    labels: [],
  },
  {
    name: 'service.document.processed.count',
    kind: 'counter',
    description: 'Documents checked (clean or rejected)',
    labels: [],
  },
  {
    name: 'service.audit.export.rows',
    kind: 'counter',
    description: 'Audit rows exported (no audit export on this platform: always 0)',
    labels: [],
  },
  {
    name: 'service.retention.deleted',
    kind: 'counter',
    description: 'Rows deleted by the retention sweep',
    labels: [],
  },
] as const satisfies readonly MetricSpec[];

export type ServiceMetricName = (typeof SERVICE_METRICS)[number]['name'];

/** The name Prometheus shows: dots to underscores, and `_total` after a counter's. Pure. */
export function prometheusName(spec: Pick<MetricSpec, 'name' | 'kind'>): string {
  const base = spec.name.replace(/[^a-zA-Z0-9_]/g, '_');
  return spec.kind === 'counter' ? `${base}_total` : base;
}
