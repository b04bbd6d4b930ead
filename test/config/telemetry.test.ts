// Telemetry settings (src/config/telemetry.ts; docs/telemetry.md "Settings"): off unless an endpoint or a
// metrics port is named, OTEL_SDK_DISABLED winning; each bad value names its setting. And the sampler
// each OTEL_TRACES_SAMPLER names.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { samplerOf } from '../../src/telemetry/index.ts';

const telemetryOf = (env: Record<string, string>) => loadConfig(env, '/srv/platform').telemetry;

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env, '/srv/platform');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('telemetry settings', () => {
  it('defaults: off, parentbased_always_on at ratio 1, no SQL text, no trace link', () => {
    expect(telemetryOf({})).toEqual({
      enabled: false,
      otlpEndpoint: null,
      metricsPort: null,
      serviceName: null,
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      pgStatements: false,
      traceUrlTemplate: null,
    });
  });

  it.each<[string, Record<string, string>, boolean]>([
    ['an endpoint alone', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    ['a metrics port alone', { METRICS_PORT: '9464' }, true],
    ['both', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', METRICS_PORT: '9464' }, true],
    ['neither, sampler set', { OTEL_TRACES_SAMPLER: 'always_on' }, false],
    [
      'an endpoint, OTEL_SDK_DISABLED=true',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' },
      false,
    ],
    ['a port, OTEL_SDK_DISABLED=true', { METRICS_PORT: '9464', OTEL_SDK_DISABLED: 'true' }, false],
    ['a port, OTEL_SDK_DISABLED=false', { METRICS_PORT: '9464', OTEL_SDK_DISABLED: 'false' }, true],
  ])('%s: enabled %s', (_case, env, enabled) => {
    expect(telemetryOf(env).enabled).toBe(enabled);
  });

  it.each<[string, Record<string, string>, string]>([
    ['a ratio above 1', { OTEL_TRACES_SAMPLER_ARG: '1.5' }, 'OTEL_TRACES_SAMPLER_ARG'],
    ['a negative ratio', { OTEL_TRACES_SAMPLER_ARG: '-0.1' }, 'OTEL_TRACES_SAMPLER_ARG'],
    ['a ratio that is no number', { OTEL_TRACES_SAMPLER_ARG: 'half' }, 'OTEL_TRACES_SAMPLER_ARG'],
    ['an unknown sampler', { OTEL_TRACES_SAMPLER: 'jaeger_remote' }, 'OTEL_TRACES_SAMPLER'],
    ['the last port (its + 1 serves the engine)', { METRICS_PORT: '65535' }, 'METRICS_PORT'],
    ['port 0', { METRICS_PORT: '0' }, 'METRICS_PORT'],
    [
      'an endpoint without a scheme',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      'OTEL_EXPORTER_OTLP_ENDPOINT',
    ],
    [
      'a template without {traceId}',
      { TRACE_URL_TEMPLATE: 'https://traces.example.com/' },
      'TRACE_URL_TEMPLATE',
    ],
    ['statements neither true nor false', { OTEL_PG_STATEMENTS: 'yes' }, 'OTEL_PG_STATEMENTS'],
    ['disabled neither true nor false', { OTEL_SDK_DISABLED: '1' }, 'OTEL_SDK_DISABLED'],
  ])('%s: a problem naming %s', (_case, env, setting) => {
    const found = problems(env);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(new RegExp(`^${setting}: `));
  });

  it.each([
    ['0', 0],
    ['0.25', 0.25],
    ['.5', 0.5],
    ['1', 1],
    ['1.0', 1],
  ])('OTEL_TRACES_SAMPLER_ARG %s reads as %s', (raw, ratio) => {
    expect(telemetryOf({ OTEL_TRACES_SAMPLER_ARG: raw }).samplerRatio).toBe(ratio);
  });
});

describe('samplerOf', () => {
  it.each([
    ['always_on', 'AlwaysOnSampler'],
    ['always_off', 'AlwaysOffSampler'],
    ['traceidratio', 'TraceIdRatioBased{0.25}'],
    ['parentbased_always_on', 'ParentBased{root=AlwaysOnSampler'],
    ['parentbased_always_off', 'ParentBased{root=AlwaysOffSampler'],
    ['parentbased_traceidratio', 'ParentBased{root=TraceIdRatioBased{0.25}'],
  ] as const)('%s is %s…', (sampler, described) => {
    expect(samplerOf({ sampler, samplerRatio: 0.25 }).toString()).toContain(described);
  });
});
