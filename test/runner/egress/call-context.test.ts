// The one egress rule of a call (src/runner/egress/context.ts callEgressContext): http_request and ai send
// a call's requests to its approved hosts, under the deployment's private-network setting, redacted with
// the call's redactor, on the tenant's own connections and within the call's deadline; only what counts
// and bounds the requests differs between them.
import { afterAll, describe, expect, it } from 'vitest';
import { callEgressContext, type EgressUsage } from '../../../src/runner/egress/context.ts';
import { AgentPool } from '../../../src/runner/egress/pool.ts';
import { Redactor } from '../../../src/runner/redaction.ts';
import { fakeDns } from './vendor.ts';

const agents = new AgentPool();
afterAll(() => agents.close());

const lookup = fakeDns({ 'vendor.test': ['203.0.113.7'] }).lookup;
const call = {
  tenantId: 'tenant-a',
  secretTag: 'tag1',
  secrets: new Map([['API_KEY', 'k-123456789']]),
  hosts: ['vendor.test', 'api.vendor.test:8443'],
  redactor: new Redactor(),
  deadline: 1_700_000_000_000,
  signal: new AbortController().signal,
};

describe('callEgressContext', () => {
  // [who sends, private networks allowed, usage, maxRequests]
  const rows: [string, boolean, EgressUsage, number | undefined][] = [
    ['http_request, the call’s own requests', false, { httpRequests: 3, reusedConnections: 1 }, undefined],
    [
      'http_request where private networks are allowed',
      true,
      { httpRequests: 0, reusedConnections: 0 },
      undefined,
    ],
    ['ai, the model vendor’s requests apart', false, { httpRequests: 2, reusedConnections: 0 }, 10],
  ];

  it.each(rows)('%s', (_who, allowPrivateNetworks, usage, maxRequests) => {
    const egress = callEgressContext({ agents, allowPrivateNetworks, lookup }, call, usage, maxRequests);
    expect(egress).toEqual({
      tenantId: 'tenant-a',
      secretTag: 'tag1',
      secrets: call.secrets,
      approvedHosts: ['vendor.test', 'api.vendor.test:8443'],
      allowPrivateNetworks,
      redactor: call.redactor,
      usage,
      maxRequests,
      deadline: 1_700_000_000_000,
      signal: call.signal,
      agents,
      lookup,
    });
    // The live objects themselves: counts grow in the caller's usage, the call's redactor learns values.
    expect(egress.usage).toBe(usage);
    expect(egress.redactor).toBe(call.redactor);
    expect(egress.agents).toBe(agents);
    expect(egress.signal).toBe(call.signal);
  });
});
