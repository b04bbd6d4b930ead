// Every span leaves the process through ExportedSpans (export-rules.ts): the exporters' processors see a
// copy of the ended span with what must not leave taken off, never the span itself.
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { exportedAttributes, exportedEventAttributes, exportedStatus } from './export-rules.ts';

export class ExportedSpans implements SpanProcessor {
  constructor(
    private readonly next: SpanProcessor,
    private readonly pgStatements: boolean,
  ) {}

  onStart(span: Span, parent: Context): void {
    this.next.onStart(span, parent);
  }

  onEnd(span: ReadableSpan): void {
    this.next.onEnd(exportedView(span, this.pgStatements));
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}

/**
 * The span as it may be exported: what must not leave taken off, the rest the span's own. A plain object
 * of the exporters' fields, not a proxy of the span: the OTLP transformer reads each of them, on every span.
 */
function exportedView(span: ReadableSpan, pgStatements: boolean): ReadableSpan {
  const context = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => context,
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: exportedStatus(span.status),
    attributes: exportedAttributes(span.attributes, pgStatements),
    links: span.links,
    events: span.events.map((event) => ({ ...event, attributes: exportedEventAttributes(event.attributes) })),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
