// The pure rules of the service metrics: label shaping (names, never ids), Prometheus names, the series
// counters start with, what the database gauges observe, and what a vendor webhook counts as.
import { describe, expect, it } from 'vitest';
import { prometheusName, SERVICE_METRICS } from '../../src/telemetry/catalogue.ts';
import { observationsOf } from '../../src/telemetry/database-gauges.ts';
import { withEveryQueue } from '../../src/telemetry/engine-metrics.ts';
import { invocationLabels, looksLikeId, nameLabel } from '../../src/telemetry/metric-labels.ts';
import { startingSeries } from '../../src/telemetry/metrics.ts';
import { webhookResultOf } from '../../src/vendor-sessions/webhook-rules.ts';

describe('label values', () => {
  it.each([
    ['acme', 'acme'],
    ['vendor-1', 'vendor-1'],
    [null, 'unknown'],
    ['', 'unknown'],
    ['0b7c2f0e-6a43-4c1e-9d44-6a8a3c9e1f20', 'unknown'],
    ['0B7C2F0E-6A43-4C1E-9D44-6A8A3C9E1F20', 'unknown'],
    ['0b7c2f0e6a434c1e9d446a8a3c9e1f20', '0b7c2f0e6a434c1e9d446a8a3c9e1f20'],
  ])('a name %j is labelled %j', (value, label) => {
    expect(nameLabel(value)).toBe(label);
  });

  it('an invocation is labelled with the tenant and install names, never an id', () => {
    expect(
      invocationLabels({
        tenant: 'acme',
        app: 'http-connector',
        install: 'vendor',
        action: 'request',
        status: 'success',
      }),
    ).toEqual({
      tenant: 'acme',
      app: 'http-connector',
      install: 'vendor',
      action: 'request',
      status: 'success',
    });
    const unread = invocationLabels({
      tenant: null,
      app: 'idv',
      install: '7d0f3c52-1a3e-4c1b-9a55-2b8f0e6c1d11',
      action: 'start',
      status: 'pending',
    });
    expect(unread).toMatchObject({ tenant: 'unknown', install: 'unknown', status: 'pending' });
    expect(Object.values(unread).some(looksLikeId)).toBe(false);
  });
});

describe('the catalogue', () => {
  it.each([
    ['service.app.invocation.duration', 'histogram', 'service_app_invocation_duration'],
    ['service.decision.count', 'counter', 'service_decision_count_total'],
    ['service.app.calls.in_flight', 'updown', 'service_app_calls_in_flight'],
    ['service.rule_set.evaluation.duration', 'histogram', 'service_rule_set_evaluation_duration'],
    ['service.app.circuit.open', 'gauge', 'service_app_circuit_open'],
  ] as const)('%s (%s) shows in Prometheus as %s', (name, kind, shown) => {
    expect(prometheusName({ name, kind })).toBe(shown);
  });

  it('holds the 26 service metrics once each, durations in ms, no label of an id', () => {
    const names = SERVICE_METRICS.map((m) => m.name);
    expect(new Set(names).size).toBe(26);
    for (const m of SERVICE_METRICS) {
      if (m.kind === 'histogram') expect(m.unit, m.name).toBe('ms');
      for (const label of m.labels) expect(label, m.name).not.toMatch(/id$/i);
    }
  });

  it.each([
    [{ labels: [] }, [{}]],
    [{ labels: ['op'], startAt: { op: ['hit', 'miss'] } }, [{ op: 'hit' }, { op: 'miss' }]],
    [{ labels: ['tenant', 'status'] }, []],
  ])('a counter of %j starts with the series %j', (spec, series) => {
    expect(startingSeries(spec)).toEqual(series);
  });
});

describe('database gauges', () => {
  it('observe each state and kind, the documents, the quota share and no case', () => {
    const observed = observationsOf({
      circuit_open: 2,
      circuit_half_open: 1,
      app_version: 3,
      app_install_change: 4,
      app_version_review: 5,
      documents_pending: 6,
      quota_used: 0.25,
    });
    expect(observed).toEqual([
      { name: 'service.app.circuit.open', value: 2, labels: { state: 'open' } },
      { name: 'service.app.circuit.open', value: 1, labels: { state: 'half_open' } },
      { name: 'service.approval.pending', value: 3, labels: { kind: 'app_version' } },
      { name: 'service.approval.pending', value: 4, labels: { kind: 'app_install_change' } },
      { name: 'service.approval.pending', value: 5, labels: { kind: 'app_version_review' } },
      { name: 'service.document.pending', value: 6, labels: {} },
      { name: 'service.app.quota.used', value: 0.25, labels: {} },
      { name: 'service.case.open', value: 0, labels: {} },
    ]);
  });

  it('engine rows gain every queue in each status at zero', () => {
    const rows = withEveryQueue(
      [{ queue: 'apps', status: 'ENQUEUED', workflows: 3, oldest_seconds: 1.5, recovering: 0 }],
      ['platform', 'apps'],
    );
    expect(rows.map((r) => [r.queue, r.status, r.workflows])).toEqual([
      ['apps', 'ENQUEUED', 3],
      ['platform', 'ENQUEUED', 0],
      ['platform', 'PENDING', 0],
      ['apps', 'PENDING', 0],
    ]);
  });
});

describe('what a vendor webhook counts as', () => {
  const cb = '7d0f3c52-1a3e-4c1b-9a55-2b8f0e6c1d11';
  it.each([
    [{ errorCode: 'unknown_install' }, 'refused'],
    [{ errorCode: 'missing_external_id' }, 'refused'],
    [{ errorCode: 'not_found' }, 'refused'],
    [{ errorCode: 'app_blocked' }, 'refused'],
    [{ errorCode: 'apps_unavailable' }, 'refused'],
    [{ errorCode: 'webhook_rejected' }, 'rejected'],
    [{ errorCode: 'app_webhook_failed' }, 'error'],
    [{ errorCode: null }, 'error'],
    [{ answer: { statusCode: 202, body: { received: false, ignored: true } } }, 'ignored'],
    [{ answer: { statusCode: 200, body: { received: false, duplicate: true } } }, 'duplicate'],
    [
      {
        answer: {
          statusCode: 200,
          body: { received: false, stale: true, callbackId: cb, status: 'completed' },
        },
      },
      'stale',
    ],
    [
      {
        answer: {
          statusCode: 202,
          body: { received: true, accepted: true, callbackId: cb, status: 'pending' },
        },
      },
      'accepted',
    ],
    [
      { answer: { statusCode: 202, body: { received: true, callbackId: cb, status: 'completed' } } },
      'completed',
    ],
    [{ answer: { statusCode: 202, body: { received: true, callbackId: cb, status: 'failed' } } }, 'failed'],
  ] as const)('%j → %s', (ended, result) => {
    expect(webhookResultOf(ended as Parameters<typeof webhookResultOf>[0])).toBe(result);
  });
});
