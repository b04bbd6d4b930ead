// The service.* gauges read from the database (docs/telemetry.md "Metrics"): circuits open, approvals
// and documents pending, the most used tenant quota, and cases (none). Observed by the worker only — one
// process per deployment role that always runs beside the sweeps — in one batch callback: one query per
// collection (each scrape of /metrics, each OTLP push), every count on a small table or a partial index.
// The values are the whole deployment's: with several workers, read them with max(), not sum().
import type { BatchObservableResult, Observable } from '@opentelemetry/api';
import type { Pool } from 'pg';
import { APPROVAL_KINDS, CIRCUIT_STATES, SERVICE_METRICS } from './catalogue.ts';
import { meterNow } from './metrics.ts';

/** One row of counts; the quota share as a fraction. */
export interface GaugeRow {
  circuit_open: number;
  circuit_half_open: number;
  app_version: number;
  app_install_change: number;
  app_version_review: number;
  documents_pending: number;
  quota_used: number;
}

// A tenant quota's period starts at 00:00 UTC of the day or of the month (calls/quotas.ts); metering
// rows are keyed by UTC day as YYYY-MM-DD.
export const GAUGES_SQL = `
select
  (select count(*) from app_install_circuits where state = 'open')::int as circuit_open,
  (select count(*) from app_install_circuits where state = 'half_open')::int as circuit_half_open,
  (select count(*) from app_publish_requests where status = 'pending')::int as app_version,
  (select count(*) from app_install_changes where decision is null)::int as app_install_change,
  (select count(*) from app_reviews where status = 'pending')::int as app_version_review,
  (select count(*) from subject_documents where status = 'pending')::int as documents_pending,
  (select coalesce(max(used / q.max), 0)::float8 from app_tenant_quotas q
     cross join lateral (
       select coalesce(sum(case when q.metric = 'calls' then m.calls else m.http_requests end), 0)::float8 as used
       from app_metering m
       where m.tenant_id = q.tenant_id
         and m.day >= to_char(date_trunc(q.period, now() at time zone 'utc'), 'YYYY-MM-DD')
     ) usage
     where q.max > 0) as quota_used`;

/** What each gauge observes from one row. Pure. */
export function observationsOf(
  row: GaugeRow,
): { name: string; value: number; labels: Record<string, string> }[] {
  const circuit = { open: row.circuit_open, half_open: row.circuit_half_open };
  return [
    ...CIRCUIT_STATES.map((state) => ({
      name: 'service.app.circuit.open',
      value: circuit[state],
      labels: { state },
    })),
    ...APPROVAL_KINDS.map((kind) => ({
      name: 'service.approval.pending',
      value: Number(row[kind]),
      labels: { kind },
    })),
    { name: 'service.document.pending', value: row.documents_pending, labels: {} },
    { name: 'service.app.quota.used', value: row.quota_used, labels: {} },
    // The platform keeps no cases: the gauge is there, at zero, for dashboards made for it.
    { name: 'service.case.open', value: 0, labels: {} },
  ];
}

/** The gauges of the catalogue, every one observed here. */
const GAUGES = SERVICE_METRICS.filter((spec) => spec.kind === 'gauge');

/** Observes the gauges from `pool` until stopped; a failed read observes nothing that time. */
export function observeDatabaseGauges(pool: Pool, onError: (error: unknown) => void): { stop(): void } {
  const meter = meterNow();
  const gauges = new Map<string, Observable>(
    GAUGES.map(({ name, description }) => [name, meter.createObservableGauge(name, { description })]),
  );
  const callback = async (result: BatchObservableResult) => {
    let row: GaugeRow;
    try {
      row = (await pool.query<GaugeRow>(GAUGES_SQL)).rows[0] as GaugeRow;
    } catch (error) {
      onError(error);
      return;
    }
    for (const o of observationsOf(row)) {
      const gauge = gauges.get(o.name);
      if (gauge) result.observe(gauge, o.value, o.labels);
    }
  };
  const observables = [...gauges.values()];
  meter.addBatchObservableCallback(callback, observables);
  return { stop: () => meter.removeBatchObservableCallback(callback, observables) };
}
