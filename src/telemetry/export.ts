// Every span leaves the process through ExportedSpans (export-rules.ts): the exporters' processors see a
// view of the ended span with what must not leave taken off, never the span itself.
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

/** The span as it may be exported; everything else (its context, times, links) read through. */
function exportedView(span: ReadableSpan, pgStatements: boolean): ReadableSpan {
  const overrides: Partial<Record<keyof ReadableSpan, unknown>> = {
    attributes: exportedAttributes(span.attributes, pgStatements),
    status: exportedStatus(span.status),
    events: span.events.map((event) => ({ ...event, attributes: exportedEventAttributes(event.attributes) })),
  };
  return new Proxy(span, {
    get: (target, key, receiver) =>
      Object.hasOwn(overrides, key)
        ? overrides[key as keyof ReadableSpan]
        : Reflect.get(target, key, receiver),
  });
}
