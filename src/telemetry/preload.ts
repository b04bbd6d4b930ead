// Loaded by the `platform` command before anything imports `pg`: PostgreSQL's client is instrumented as it
// loads, which only works before its first import. Does nothing when telemetry is off (and then loads
// nothing of OpenTelemetry, so a command such as `platform token` starts without it).
import { Reader } from '../config/reader.ts';
import { readTelemetry } from '../config/telemetry.ts';

const settings = readTelemetry(new Reader(process.env));
if (settings.enabled) {
  const { PgInstrumentation } = await import('@opentelemetry/instrumentation-pg');
  // Spans only inside a trace (a request, a run's step), never a query's parameters.
  new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }).enable();
}
