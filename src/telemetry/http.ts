// One server span per request on our Fastify listeners (the api's public and internal ones, the runner's),
// and the standard `http.server.request.duration` histogram, from Fastify hooks of our own (docs/telemetry.md
// "Traces"). Node's http and undici are deliberately not auto-instrumented: that would trace the vendor
// requests modules make and the outbound webhook deliveries, which must stay untraced.
import {
  type Attributes,
  context,
  type Histogram,
  type MeterProvider,
  metrics,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { httpRouteOf, isUntracedPath, serverSpanName } from './http-rules.ts';
import { TRACER_NAME } from './names.ts';

const spans = new WeakMap<FastifyRequest, Span>();
let duration: { provider: MeterProvider; histogram: Histogram } | null = null;

/** The bucket bounds, in seconds, the semantic conventions advise for `http.server.request.duration`. */
export const HTTP_DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

/** The request-duration histogram of the meter provider in place (made again if telemetry restarted). */
function durationHistogram(): Histogram {
  const provider = metrics.getMeterProvider();
  if (duration?.provider !== provider) {
    const histogram = provider.getMeter(TRACER_NAME).createHistogram('http.server.request.duration', {
      unit: 's',
      description: 'Duration of HTTP server requests',
      advice: { explicitBucketBoundaries: HTTP_DURATION_BUCKETS },
    });
    duration = { provider, histogram };
  }
  return duration.histogram;
}

/**
 * Installs the hooks: call before any other onRequest hook, so authentication and every handler run inside
 * the request's span. The span starts under an incoming `traceparent`; its attributes are the method, the
 * route pattern and the status code, never the URL's query or a header.
 */
export function installHttpTelemetry(app: FastifyInstance): void {
  // A callback hook: what follows it (later hooks, body parsing, the handler) runs inside `done`, so the
  // span is the active one throughout the request.
  app.addHook('onRequest', (request, reply, done) => {
    if (isUntracedPath(request.url)) return done();
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const route = httpRouteOf(request.routeOptions.url);
    const span = trace
      .getTracer(TRACER_NAME)
      .startSpan(
        serverSpanName(request.method, route),
        { kind: SpanKind.SERVER, attributes: requestAttributes(request.method, route) },
        parent,
      );
    spans.set(request, span);
    const active = trace.setSpan(parent, span);
    // The body and the answer's end arrive as events of the request and the response, which would otherwise
    // run outside the span (the completion's log line among them).
    context.bind(active, request.raw);
    context.bind(active, reply.raw);
    context.with(active, done);
  });
  app.addHook('onResponse', async (request, reply) => endRequest(request, reply));
  app.addHook('onRequestAbort', async (request) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    span.setAttribute('error.type', 'aborted');
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}

function requestAttributes(method: string, route: string | null): Attributes {
  return { 'http.request.method': method, ...(route ? { 'http.route': route } : {}) };
}

function endRequest(request: FastifyRequest, reply: FastifyReply): void {
  if (isUntracedPath(request.url)) return;
  const route = httpRouteOf(request.routeOptions.url);
  const status = reply.statusCode;
  durationHistogram().record(reply.elapsedTime / 1000, {
    ...requestAttributes(request.method, route),
    'http.response.status_code': status,
  });
  const span = spans.get(request);
  if (!span) return;
  spans.delete(request);
  span.setAttribute('http.response.status_code', status);
  // A server span fails on 5xx only: a 4xx is the client's, the server did what it should.
  if (status >= 500) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute('error.type', request.failure?.code ?? String(status));
  }
  span.end();
}
