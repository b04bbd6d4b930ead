// Loaded by the `platform` command before anything imports `pg`: PostgreSQL's client is instrumented as it
// loads, which only works before its first import. Does nothing when telemetry is off.
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { Reader } from '../config/reader.ts';
import { readTelemetry } from '../config/telemetry.ts';

const settings = readTelemetry(new Reader(process.env));
if (settings.enabled) {
  // Spans only inside a trace (a request, a run's step), never a query's parameters.
  new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }).enable();
}
