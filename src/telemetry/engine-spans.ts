// DBOS's own spans in our traces (docs/telemetry.md "Traces"). A workflow the queue dequeues starts its
// span outside any trace (DBOS does not carry the enqueuer's context), so that span would be a trace of
// one span per run: it is not recorded, and the run's own workflow span (spans.ts inWorkflowSpan), a child
// of the request that started the run, stands in for it. DBOS's step spans are the activity spans: they
// get the run's attributes (service.run_id, service.step_id…) from the context they start in.
import { type Attributes, type Context, type Link, type SpanKind, trace } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import {
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { activityOf } from './spans.ts';

type Operation = 'workflow' | 'step';

/** Whether DBOS made the span for an operation of this type (either of its attribute spellings). Pure. */
export function isEngineSpan(attributes: Attributes, type: Operation): boolean {
  return attributes.operationType === type || attributes['dbos.operation.type'] === type;
}

/** Marks (in the trace state) a span left unrecorded here, so that what starts under it is not recorded either. */
const UNRECORDED = { key: 'appsplatform', value: 'unrecorded' } as const;

const underUnrecorded = (parent: Context): boolean =>
  trace.getSpanContext(parent)?.traceState?.get(UNRECORDED.key) === UNRECORDED.value;

/**
 * The deployment's sampler, except that DBOS's workflow spans are never recorded, nor what starts under
 * them outside the run's own span (the engine's bookkeeping queries): with always_on, each would be a
 * stray trace.
 */
export class WithoutEngineWorkflowSpans implements Sampler {
  constructor(private readonly inner: Sampler) {}

  shouldSample(
    parent: Context,
    traceId: string,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    if (isEngineSpan(attributes, 'workflow') || underUnrecorded(parent)) {
      return {
        decision: SamplingDecision.NOT_RECORD,
        traceState: new TraceState().set(UNRECORDED.key, UNRECORDED.value),
      };
    }
    return this.inner.shouldSample(parent, traceId, name, kind, attributes, links);
  }

  toString(): string {
    return `WithoutEngineWorkflowSpans{${this.inner.toString()}}`;
  }
}

/** Gives DBOS's step spans the activity attributes of the context they start in. */
export class ActivityAttributes implements SpanProcessor {
  onStart(span: Span, parent: Context): void {
    const activity = activityOf(parent);
    if (activity && isEngineSpan(span.attributes, 'step')) span.setAttributes(activity);
  }

  onEnd(): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
