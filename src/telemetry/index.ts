// Telemetry's front door (docs/telemetry.md).
export { METRICS_PUSH_MS, samplerOf, signalUrl, startTelemetry, type Telemetry } from './sdk.ts';
