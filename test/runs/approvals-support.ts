// Helpers of the definition approvals tests (docs/runs.md "Approvals of definitions"): bodies that need no
// install, the tenant's approval settings, and the approval routes through the real api.
import { expect } from 'vitest';
import type { definitionCalls } from './support.ts';
import { ok, type Version } from './support.ts';

type Calls = ReturnType<typeof definitionCalls>;

/** A workflow of one decide step and a rule set of one condition: valid without any install. */
export const decideOnly = (threshold = 0) => ({
  steps: [
    {
      id: 'decide',
      type: 'decide',
      branches: [{ when: { path: 'score', gt: threshold }, outcome: 'review' }],
      otherwise: 'approve',
    },
  ],
});
export const adultRule = (age = 18) => ({
  rules: [{ key: 'adult', type: 'condition', when: { path: 'subject.age', gte: age } }],
});

export interface Approval {
  id: string;
  kind: string;
  key: string;
  version: number;
  status: 'open' | 'approved' | 'rejected' | 'withdrawn';
  origin: 'publish' | 'rename';
  fourEyes: boolean;
  requestedBy: string;
  requestedByName: string | null;
  requestedAt: string;
  decidedBy: string | null;
  decidedAt: string | null;
  comment: string | null;
}

export interface AuditItem {
  id: string;
  action: string;
  actor: { id: string };
  resource: { type: string; id: string };
  data: Record<string, unknown>;
}

export interface Note {
  kind: string;
  resource: { type: string; id: string };
  data: Record<string, unknown>;
}

export function approvalCalls(api: Calls) {
  const path = (id: string, action?: string) => `/definition-approvals/${id}${action ? `/${action}` : ''}`;
  return {
    /** Approvals for definitions (and apps), four-eyes as asked. */
    async requireApprovals(token: string, fourEyes = true, requiredFor = ['definitions']) {
      await ok(
        await api.call('/tenants/me/settings', token, 'PUT', {
          approvals: { required: true, requiredFor, fourEyes },
          collection: { flowUrl: null },
        }),
      );
    },
    /** A publish held for approval: 202 { version, approval }. */
    async held(response: Response) {
      const body = await ok<{ version: Version; approval: Approval }>(response, 202);
      expect(body.approval).toMatchObject({ status: 'open', version: body.version.version });
      expect(body.version.status).toBe('draft');
      return body;
    },
    list: async (token: string, query = '') =>
      ok<{ items: Approval[]; total: number; totalIsEstimate: boolean }>(
        await api.call(`/definition-approvals${query}`, token),
      ),
    get: (token: string, id: string) => api.call(path(id), token),
    approve: (token: string, id: string, json?: unknown) =>
      api.call(path(id, 'approve'), token, 'POST', json),
    reject: (token: string, id: string, json?: unknown) => api.call(path(id, 'reject'), token, 'POST', json),
    withdraw: (token: string, id: string, json?: unknown) =>
      api.call(path(id, 'withdraw'), token, 'POST', json),
    /** The tenant's audit records of these actions, oldest first. */
    async trail(token: string, actions: string[]) {
      const body = await ok<{ items: AuditItem[] }>(await api.call('/audit-events?limit=100', token));
      // The trail answers newest first (ids are UUIDs: they say nothing of the order within a millisecond).
      return body.items.filter((i) => actions.includes(i.action)).reverse();
    },
    async notes(token: string) {
      return (await ok<{ items: Note[] }>(await api.call('/notifications', token))).items;
    },
  };
}
