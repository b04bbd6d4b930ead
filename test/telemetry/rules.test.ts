// The pure rules of traces (docs/telemetry.md "Traces"): a request span's name and the untraced paths,
// what an exported span keeps, DBOS's spans told apart, and a run's trace link. One row per sentence.
import { describe, expect, it } from 'vitest';
import { isEngineSpan } from '../../src/telemetry/engine-spans.ts';
import {
  exportedAttributes,
  exportedEventAttributes,
  exportedStatus,
} from '../../src/telemetry/export-rules.ts';
import { httpRouteOf, isUntracedPath, serverSpanName } from '../../src/telemetry/http-rules.ts';
import { traceUrlOf } from '../../src/telemetry/trace-url.ts';

describe('request spans', () => {
  it.each([
    ['/health', true],
    ['/health/ready', true],
    ['/healthz', true],
    ['/metrics', true],
    ['/health?verbose=1', true],
    ['/metrics/', true],
    ['/healthy', false],
    ['/workflow-runs', false],
    ['/', false],
  ])('%s is untraced: %s', (url, untraced) => {
    expect(isUntracedPath(url)).toBe(untraced);
  });

  it.each([
    ['POST', '/workflow-runs', 'POST /workflow-runs'],
    ['GET', '/workflow-runs/:id', 'GET /workflow-runs/:id'],
    ['GET', undefined, 'GET'],
    ['GET', '*', 'GET'],
    ['DELETE', '/*', 'DELETE'],
  ])('%s on route %s is named %s', (method, pattern, name) => {
    expect(serverSpanName(method, httpRouteOf(pattern))).toBe(name);
  });
});

describe('exported spans', () => {
  const query = { 'db.system.name': 'postgresql', 'db.query.text': 'select $1', 'db.statement': 'select $1' };

  it('lose the SQL text unless statements are on', () => {
    expect(exportedAttributes(query, false)).toEqual({ 'db.system.name': 'postgresql' });
    expect(exportedAttributes(query, true)).toEqual(query);
    const plain = { 'http.route': '/x' };
    expect(exportedAttributes(plain, false)).toBe(plain);
  });

  it('carry messages cut before query parameters', () => {
    expect(exportedStatus({ code: 2, message: 'Failed query: select $1\nparams: Ada' })).toEqual({
      code: 2,
      message: 'Failed query: select $1',
    });
    expect(exportedStatus({ code: 0 })).toEqual({ code: 0 });
    expect(
      exportedEventAttributes({
        'exception.type': 'Error',
        'exception.message': 'Failed query: x\nparams: Ada',
        'exception.stacktrace': 'Error: Failed query: x\nparams: Ada\n    at y',
      }),
    ).toEqual({
      'exception.type': 'Error',
      'exception.message': 'Failed query: x',
      'exception.stacktrace': 'Error: Failed query: x',
    });
    expect(exportedEventAttributes(undefined)).toBeUndefined();
  });
});

describe('DBOS’s spans', () => {
  it.each([
    [{ operationType: 'workflow' }, 'workflow', true],
    [{ 'dbos.operation.type': 'workflow' }, 'workflow', true],
    [{ operationType: 'step' }, 'step', true],
    [{ operationType: 'step' }, 'workflow', false],
    [{}, 'step', false],
  ] as const)('%o is a %s span: %s', (attributes, type, is) => {
    expect(isEngineSpan(attributes, type)).toBe(is);
  });
});

describe('a run’s trace link', () => {
  const id = '4bf92f3577b34da6a3ce929d0e0e4736';
  const template = 'https://jaeger.example/trace/{traceId}';
  it.each([
    [template, `00-${id}-00f067aa0ba902b7-01`, `https://jaeger.example/trace/${id}`],
    [template, `00-${id}-00f067aa0ba902b7-00`, null],
    [template, null, null],
    [null, `00-${id}-00f067aa0ba902b7-01`, null],
    [template, 'garbage', null],
    [template, `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, null],
    [
      'https://x.example/{traceId}?again={traceId}',
      `00-${id}-00f067aa0ba902b7-03`,
      `https://x.example/${id}?again=${id}`,
    ],
  ])('template %s and traceparent %s: %s', (t, parent, url) => {
    expect(traceUrlOf(t, parent)).toBe(url);
  });
});
