// PostgreSQL's client spans (docs/telemetry.md "Traces"): only inside a trace (a request, a run's step),
// never a query's parameters, no span for taking a connection. The instrumentation patches the client of
// the `pg` this process has loaded (not `pg-pool`, where it makes only connection spans and metrics),
// without any require hook: a hook resolves every later `require` anew (Node's own cache is bypassed), and
// DBOS requires the OpenTelemetry API on every span it makes, so with one each step's spans cost file
// lookups (docs/telemetry.md "Cost").
import Module, { createRequire } from 'node:module';
import { createNoopMeter } from '@opentelemetry/api';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';

const require = createRequire(import.meta.url);

/** Patches the instrumentation into the loaded `pg`; `unpatch()` takes it out again. */
export function instrumentPg(): { unpatch(): void } {
  // Even disabled, an instrumentation's first construction in a process hooks `require` for every module
  // (its RequireInTheMiddleSingleton); nothing here needs it, so Node's own is put back at once.
  const nodeRequire = Module.prototype.require;
  const instrumentation = new PgInstrumentation({
    enabled: false,
    requireParentSpan: true,
    enhancedDatabaseReporting: false,
    ignoreConnectSpans: true,
  });
  Module.prototype.require = nodeRequire;
  // Spans only: its metrics (db.client.*) are not the platform's (docs/telemetry.md "Metrics"), and
  // recording them cost a quarter of a millisecond a run.
  const noMeter = createNoopMeter();
  instrumentation.setMeterProvider({ getMeter: () => noMeter });
  const pg: unknown = require('pg');
  const client = instrumentation.getModuleDefinitions().find((definition) => definition.name === 'pg');
  if (!client?.patch || !client.unpatch) throw new Error('the pg instrumentation has no patch for pg');
  client.patch(pg);
  return { unpatch: () => client.unpatch?.(pg) };
}
