// The OpenTelemetry SDK's own reader, registered as the process's global meter provider: tests read
// what the platform recorded as the exporters would, on demand (no export interval to wait for).
import { metrics } from '@opentelemetry/api';
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';

export interface Point {
  attributes: Record<string, unknown>;
  /** A counter's or gauge's value; a histogram's count of observations. */
  value: number;
  /** A histogram's sum; absent otherwise. */
  sum?: number;
}

export class TestMetricReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onForceFlush() {}
  protected async onShutdown() {}

  /** Each data point of the metric `name` now. */
  async points(name: string): Promise<Point[]> {
    const { resourceMetrics } = await this.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === name);
    return (metric?.dataPoints ?? []).map((p) =>
      typeof p.value === 'number'
        ? { attributes: p.attributes, value: p.value }
        : {
            attributes: p.attributes,
            value: (p.value as { count: number }).count,
            sum: (p.value as { sum?: number }).sum ?? 0,
          },
    );
  }

  /** The value of the point of `name` holding `attributes` (0 when there is none). */
  async value(name: string, attributes: Record<string, string> = {}): Promise<number> {
    const point = (await this.points(name)).find((p) =>
      Object.entries(attributes).every(([k, v]) => p.attributes[k] === v),
    );
    return point?.value ?? 0;
  }
}

/** A reader on a fresh global meter provider (telemetry on in this process); `metrics.disable()` undoes it. */
export function readGlobalMetrics(): TestMetricReader {
  const reader = new TestMetricReader();
  metrics.disable();
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  return reader;
}
