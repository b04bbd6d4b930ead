// The issues a config save answers (docs/installs.md "Rules, in the order they are checked"): at the
// deepest pointer at fault, in sentences a person understands, never the schema validator's own text.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configIssues } from '../../src/installs/plan.ts';
import type { Manifest } from '../../src/module/manifest-types.ts';

/** The http-connector's manifest as the release builds it (npm ci builds apps/build). */
const CONNECTOR = JSON.parse(
  readFileSync(new URL('../../apps/build/http-connector-1.0.0.manifest.json', import.meta.url), 'utf8'),
) as Manifest;
const RULES = { allowPrivateNetworks: false, ownHosts: [] };
const BASE = { baseUrl: 'https://api.vendor.example' };

const issuesOf = (manifest: Manifest, config: Record<string, unknown>) =>
  configIssues(manifest, config, RULES).issues;

/** A manifest whose config schema is `schema` (what configIssues reads of a manifest). */
const withSchema = (schema: Record<string, unknown>) => ({ ...CONNECTOR, configSchema: schema }) as Manifest;

describe('configIssues of the http-connector’s secret variables', () => {
  it('puts a secret variable holding a value at /variables/<i>/value', () => {
    const config = {
      ...BASE,
      variables: [
        { key: 'PLAIN', value: 'x' },
        { key: 'TOKEN', secret: true, value: 'inline' },
      ],
    };
    expect(issuesOf(CONNECTOR, config)).toEqual([
      {
        path: '/variables/1/value',
        message: 'a secret variable holds no value in config: store it as a secret',
      },
    ]);
  });

  it('puts stepPlaces on a plain variable at /variables/<i>/stepPlaces', () => {
    const config = { ...BASE, variables: [{ key: 'REGION', value: 'eu', stepPlaces: ['headers'] }] };
    expect(issuesOf(CONNECTOR, config)).toEqual([
      { path: '/variables/0/stepPlaces', message: 'stepPlaces are allowed only on secret variables' },
    ]);
  });

  it('answers each mistake once, alongside the schema’s other issues', () => {
    const config = {
      baseUrl: 'ftp://vendor.example',
      variables: [
        { key: 'TOKEN', secret: true, value: 'inline' },
        { key: 'REGION', stepPlaces: ['query'] },
      ],
    };
    const issues = issuesOf(CONNECTOR, config);
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      '/baseUrl',
      '/variables/0/value',
      '/variables/1/stepPlaces',
    ]);
    expect(JSON.stringify(issues)).not.toMatch(/must NOT be valid|must match "(then|else)" schema/);
  });
});

describe('configIssues of any schema’s not and if rules', () => {
  it('points a forbidden property at itself, with a sentence', () => {
    const schema = { type: 'object', not: { required: ['legacy'] } };
    expect(issuesOf(withSchema(schema), { legacy: 1 })).toEqual([
      { path: '/legacy', message: 'legacy is not allowed here' },
    ]);
  });

  it('says what a not rule refuses when it is no list of properties', () => {
    const schema = { type: 'object', properties: { mode: { not: { const: 'off' } } } };
    expect(issuesOf(withSchema(schema), { mode: 'off' })).toEqual([
      { path: '/mode', message: 'this value is not allowed here' },
    ]);
  });

  it('answers the failing branch of an if rule without the rule’s own text', () => {
    // Parsed, as manifests are: an object literal holding `then` reads as a thenable to the linter.
    const schema = JSON.parse(
      '{"type":"object","if":{"properties":{"kind":{"const":"a"}},"required":["kind"]},"then":{"required":["aValue"]}}',
    );
    expect(issuesOf(withSchema(schema), { kind: 'a' })).toEqual([
      { path: '/aValue', message: 'is required' },
    ]);
  });
});
