// The workflow engine's core metrics, served by the worker on METRICS_PORT + 1 (docs/telemetry.md
// "Engine metrics"): DBOS keeps its workflows and queues in its own tables, and these gauges read them
// in one query per scrape, through the partial index DBOS keeps on workflows in flight (ENQUEUED,
// PENDING) — never a count over the whole history. A meter provider of its own, apart from the
// service's, so each port serves only its metrics. Queue names are the platform's (`platform`, `apps`);
// no workflow id, executor id or partition key (a tenant id) is ever a label.
import type { BatchObservableResult } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { Pool } from 'pg';

export interface EngineRow {
  queue: string;
  status: string;
  workflows: number;
  /** Seconds the oldest of them has waited since it was created. */
  oldest_seconds: number;
  /** Of them, those DBOS has started again after a crash (recovery attempts past the first). */
  recovering: number;
}

/** Workflows in flight per queue and status; `none` for workflows on no queue (a run's own). */
export const engineSql = (schema: string) => `
select coalesce(queue_name, 'none') as queue, status,
       count(*)::int as workflows,
       coalesce(extract(epoch from now()) - min(created_at) / 1000.0, 0)::float8 as oldest_seconds,
       count(*) filter (where recovery_attempts > 1)::int as recovering
from "${schema}".workflow_status
where status in ('ENQUEUED', 'PENDING')
group by 1, 2`;

export interface EngineMetrics {
  url: string;
  stop(): Promise<void>;
}

/** Serves the engine's metrics on 0.0.0.0:`port`/metrics until stopped. */
export async function startEngineMetrics(options: {
  port: number;
  pool: Pool;
  schema: string;
  /** The worker's task queues: each shows in each status, at zero when empty. */
  queues: readonly string[];
  serviceName: string;
  onError: (error: unknown) => void;
}): Promise<EngineMetrics> {
  const exporter = new PrometheusExporter({ host: '0.0.0.0', port: options.port, preventServerStart: true });
  await exporter.startServer();
  const provider = new MeterProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    readers: [exporter],
  });
  const meter = provider.getMeter('apps-platform-engine');
  const workflows = meter.createObservableGauge('dbos.workflows.in_flight', {
    description: 'Workflows enqueued or running (PENDING), per queue and status',
  });
  const oldest = meter.createObservableGauge('dbos.workflows.oldest_age', {
    unit: 's',
    description: 'Age of the oldest workflow enqueued or running, per queue and status',
  });
  const recovering = meter.createObservableGauge('dbos.workflows.recovering', {
    description: 'Workflows in flight that DBOS recovered after a crash, per queue and status',
  });
  meter.addBatchObservableCallback(
    async (result: BatchObservableResult) => {
      let rows: EngineRow[];
      try {
        rows = (await options.pool.query<EngineRow>(engineSql(options.schema))).rows;
      } catch (error) {
        options.onError(error);
        return;
      }
      for (const row of withEveryQueue(rows, options.queues)) {
        const labels = { queue: row.queue, status: row.status };
        result.observe(workflows, row.workflows, labels);
        result.observe(oldest, row.oldest_seconds, labels);
        result.observe(recovering, row.recovering, labels);
      }
    },
    [workflows, oldest, recovering],
  );
  return {
    url: `http://0.0.0.0:${options.port}/metrics`,
    stop: () => provider.shutdown(),
  };
}

/** The platform's queues, each in each status, at zero where the engine has none. Pure. */
export function withEveryQueue(rows: readonly EngineRow[], queues: readonly string[]): EngineRow[] {
  const all = [...rows];
  for (const queue of queues) {
    for (const status of ['ENQUEUED', 'PENDING']) {
      if (!all.some((r) => r.queue === queue && r.status === status)) {
        all.push({ queue, status, workflows: 0, oldest_seconds: 0, recovering: 0 });
      }
    }
  }
  return all;
}
