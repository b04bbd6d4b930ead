// Every manifest limit (counts, lengths and ranges of MANIFEST_LIMITS), at its edge and past it.
import { describe, expect, it } from 'vitest';
import { accepted, minimalManifest, refused } from './manifests.ts';

type Json = Record<string, unknown>;

const times = <T>(n: number, item: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => item(i));
const withAction = (fields: Json) => ({
  ...minimalManifest(),
  actions: [{ name: 'run', input: {}, output: {}, ...fields }],
});
const withSecret = (fields: Json) => ({ ...minimalManifest(), secrets: [{ name: 'KEY', ...fields }] });
const configProperties = (n: number) => ({
  type: 'object',
  properties: Object.fromEntries(times(n, (i) => [`url${i}`, { type: 'string' }])),
});

interface Edge {
  what: string;
  /** A manifest with n items or n characters. */
  build: (n: number) => unknown;
  /** Accepted values at the edges... */
  ok: number[];
  /** ...and refused values just past them. */
  refused: number[];
  path: string;
}

const edges: Edge[] = [
  {
    what: 'capabilities',
    build: (n) => ({ ...minimalManifest(), capabilities: times(n, (i) => `tag${i}`) }),
    ok: [0, 20],
    refused: [21],
    path: 'capabilities',
  },
  {
    what: 'secrets',
    build: (n) => ({ ...minimalManifest(), secrets: times(n, (i) => ({ name: `S${i}` })) }),
    ok: [0, 20],
    refused: [21],
    path: 'secrets',
  },
  {
    what: 'hosts',
    build: (n) => ({ ...minimalManifest(), hosts: times(n, (i) => `h${i}.example.com`) }),
    ok: [0, 20],
    refused: [21],
    path: 'hosts',
  },
  {
    what: 'hostsFromConfig',
    build: (n) => ({
      ...minimalManifest(),
      configSchema: configProperties(6),
      hostsFromConfig: times(n, (i) => `/url${i}`),
    }),
    ok: [0, 5],
    refused: [6],
    path: 'hostsFromConfig',
  },
  {
    what: 'mappable',
    build: (n) => withAction({ mappable: times(n, (i) => `/f${i}`) }),
    ok: [1, 20],
    refused: [0, 21],
    path: 'actions.run.mappable',
  },
  {
    what: 'outputFromInput',
    build: (n) =>
      withAction({
        outputFromInput: times(n, (i) => ({ kind: 'schema', output: `/o${i}`, input: `/i${i}` })),
      }),
    ok: [1, 10],
    refused: [0, 11],
    path: 'actions.run.outputFromInput',
  },
  {
    what: 'requiredWhen conditions',
    build: (n) => withSecret({ requiredWhen: times(n, (i) => ({ config: `/c${i}` })) }),
    ok: [1, 10],
    refused: [0, 11],
    path: 'secrets.0.requiredWhen',
  },
  {
    what: 'requiredWhen in values',
    build: (n) => withSecret({ requiredWhen: [{ config: '/c', in: times(n, (i) => `v${i}`) }] }),
    ok: [1, 20],
    refused: [0, 21],
    path: 'secrets.0.requiredWhen.0.in',
  },
  {
    what: 'requiredWhen value length',
    build: (n) => withSecret({ requiredWhen: [{ config: '/c', in: ['v'.repeat(n)] }] }),
    ok: [0, 200],
    refused: [201],
    path: 'secrets.0.requiredWhen.0.in.0',
  },
  {
    what: 'title',
    build: (n) => ({ ...minimalManifest(), title: 't'.repeat(n) }),
    ok: [1, 60],
    refused: [0, 61],
    path: 'title',
  },
  {
    what: 'description',
    build: (n) => ({ ...minimalManifest(), description: 'd'.repeat(n) }),
    ok: [0, 500],
    refused: [501],
    path: 'description',
  },
  {
    what: 'category',
    build: (n) => ({ ...minimalManifest(), category: 'c'.repeat(n) }),
    ok: [0, 60],
    refused: [61],
    path: 'category',
  },
  {
    what: 'vendor',
    build: (n) => ({ ...minimalManifest(), vendor: 'v'.repeat(n) }),
    ok: [0, 100],
    refused: [101],
    path: 'vendor',
  },
  {
    what: 'pricingNote',
    build: (n) => ({ ...minimalManifest(), pricingNote: 'p'.repeat(n) }),
    ok: [0, 280],
    refused: [281],
    path: 'pricingNote',
  },
  {
    what: 'secret description',
    build: (n) => withSecret({ description: 's'.repeat(n) }),
    ok: [0, 200],
    refused: [201],
    path: 'secrets.0.description',
  },
  {
    what: 'action description',
    build: (n) => withAction({ description: 'a'.repeat(n) }),
    ok: [0, 500],
    refused: [501],
    path: 'actions.run.description',
  },
  {
    what: 'version',
    build: (n) => ({ ...minimalManifest(), version: `1.0.0-${'r'.repeat(n - 6)}` }),
    ok: [50],
    refused: [51],
    path: 'version',
  },
  {
    what: 'pointer',
    build: (n) => ({ ...minimalManifest(), secretsFromConfig: `/${'p'.repeat(n - 1)}` }),
    ok: [1, 200],
    refused: [201],
    path: 'secretsFromConfig',
  },
  {
    what: 'host string',
    // A 253-character domain and a port: 259 characters; one more digit makes 260.
    build: (n) => ({
      ...minimalManifest(),
      hosts: [
        `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}:${n === 259 ? '65535' : '655351'}`,
      ],
    }),
    ok: [259],
    refused: [260],
    path: 'hosts.0',
  },
  {
    what: 'retry maxAttempts',
    build: (n) => withAction({ retry: { maxAttempts: n, backoffMs: 0 } }),
    ok: [1, 5],
    refused: [0, 6],
    path: 'actions.run.retry.maxAttempts',
  },
  {
    what: 'retry backoffMs',
    build: (n) => withAction({ retry: { maxAttempts: 2, backoffMs: n } }),
    ok: [0, 60_000],
    refused: [-1, 60_001],
    path: 'actions.run.retry.backoffMs',
  },
  {
    what: 'async callbackTimeoutSeconds',
    build: (n) => withAction({ async: { callbackTimeoutSeconds: n } }),
    ok: [1, 604_800],
    refused: [0, 604_801],
    path: 'actions.run.async.callbackTimeoutSeconds',
  },
  {
    what: 'timeoutMs',
    build: (n) => withAction({ timeoutMs: n }),
    ok: [100, 120_000],
    refused: [99, 120_001],
    path: 'actions.run.timeoutMs',
  },
  {
    what: 'memoryMiB',
    build: (n) => ({ ...minimalManifest(), memoryMiB: n }),
    ok: [16, 256],
    refused: [15, 257],
    path: 'memoryMiB',
  },
  {
    what: 'app name',
    build: (n) => ({ ...minimalManifest(), name: 'n'.repeat(n) }),
    ok: [1, 100],
    refused: [0, 101],
    path: 'name',
  },
];

describe('manifest limits', () => {
  for (const edge of edges) {
    it(`${edge.what}: ${edge.ok.join(' and ')} accepted, ${edge.refused.join(' and ')} refused at ${edge.path}`, () => {
      for (const n of edge.ok) expect(() => accepted(edge.build(n)), `${edge.what} ${n}`).not.toThrow();
      for (const n of edge.refused) expect(refused(edge.build(n)).path, `${edge.what} ${n}`).toBe(edge.path);
    });
  }

  it('counts characters as code points, not UTF-16 units', () => {
    expect(accepted({ ...minimalManifest(), title: '🛡'.repeat(60) }).title).toHaveLength(120);
    expect(refused({ ...minimalManifest(), title: '🛡'.repeat(61) }).message).toMatch(
      /at most 60 characters, got 61/,
    );
  });

  it('takes retry and async whole, not in part', () => {
    expect(refused(withAction({ retry: { maxAttempts: 2 } })).path).toBe('actions.run.retry.backoffMs');
    expect(refused(withAction({ async: {} })).path).toBe('actions.run.async.callbackTimeoutSeconds');
    expect(refused(withAction({ retry: { backoffMs: 2 } })).path).toBe('actions.run.retry.maxAttempts');
  });
});
