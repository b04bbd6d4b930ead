// Every span leaves the process through ExportedSpans (export-rules.ts): the exporters' processors see a
// copy of the ended span with what must not leave taken off, never the span itself.
import type { Context, SpanContext } from '@opentelemetry/api';
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
    this.next.onEnd(new ExportedView(span, this.pgStatements));
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}

/**
 * The span as it may be exported: what must not leave taken off, the rest the span's own. The exporters'
 * fields copied, not a proxy of the span (the OTLP transformer reads each of them, on every span), in a
 * class, so that no closure is made for each span.
 */
class ExportedView implements ReadableSpan {
  readonly name: string;
  readonly kind: ReadableSpan['kind'];
  readonly parentSpanContext: ReadableSpan['parentSpanContext'];
  readonly startTime: ReadableSpan['startTime'];
  readonly endTime: ReadableSpan['endTime'];
  readonly status: ReadableSpan['status'];
  readonly attributes: ReadableSpan['attributes'];
  readonly links: ReadableSpan['links'];
  readonly events: ReadableSpan['events'];
  readonly duration: ReadableSpan['duration'];
  readonly ended: boolean;
  readonly resource: ReadableSpan['resource'];
  readonly instrumentationScope: ReadableSpan['instrumentationScope'];
  readonly droppedAttributesCount: number;
  readonly droppedEventsCount: number;
  readonly droppedLinksCount: number;
  readonly #context: SpanContext;

  constructor(span: ReadableSpan, pgStatements: boolean) {
    this.#context = span.spanContext();
    this.name = span.name;
    this.kind = span.kind;
    this.parentSpanContext = span.parentSpanContext;
    this.startTime = span.startTime;
    this.endTime = span.endTime;
    this.status = exportedStatus(span.status);
    this.attributes = exportedAttributes(span.attributes, pgStatements);
    this.links = span.links;
    this.events =
      span.events.length === 0
        ? span.events
        : span.events.map((event) => ({ ...event, attributes: exportedEventAttributes(event.attributes) }));
    this.duration = span.duration;
    this.ended = span.ended;
    this.resource = span.resource;
    this.instrumentationScope = span.instrumentationScope;
    this.droppedAttributesCount = span.droppedAttributesCount;
    this.droppedEventsCount = span.droppedEventsCount;
    this.droppedLinksCount = span.droppedLinksCount;
  }

  spanContext(): SpanContext {
    return this.#context;
  }
}
