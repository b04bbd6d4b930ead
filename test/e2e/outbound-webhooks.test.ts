// The README's "Receive outbound webhooks", as a newcomer runs it: `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true
// npm start`, `npx platform webhooks listen` in a second terminal, a workflow that only decides published
// and run through the generated client; the listener prints the decision and the run's end verified, the
// deliveries are listed delivered and under the run, and Ctrl-C deletes the endpoint.
import { describe, expect, it } from 'vitest';
import { signal } from '../support/processes.ts';
import { answer, settledRun, startReadmeStack } from './readme-stack.ts';

describe('README: receive outbound webhooks', () => {
  it('prints a run’s decision.created and run.completed verified, lists them delivered, deletes the endpoint on Ctrl-C', async () => {
    const stack = await startReadmeStack('hooks', 'apps-platform-e2e-hooks-', {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // Not in the README's line: deliveries made at the next pass, without the ten-second hold
      // (test/outbound-webhooks/delivery.test.ts shows the hold).
      WEBHOOK_TRAIL_HOLD_MS: '0',
    });
    const { client } = stack;
    try {
      // Terminal 2: npx platform webhooks listen --token $TOKEN --events run.completed,decision.created
      const listener = await stack.serve([
        'webhooks',
        'listen',
        '--token',
        stack.token,
        '--api-url',
        stack.api,
        '--events',
        'run.completed,decision.created',
      ]);
      const endpointId = /as endpoint (\S+) for run\.completed, decision\.created; Ctrl-C stops\n/.exec(
        listener.stdout(),
      )?.[1];
      expect(endpointId, listener.stdout()).toMatch(/^[0-9a-f-]{36}$/);

      const created = await answer(
        client.POST('/workflow-definitions', {
          body: {
            key: 'greet',
            body: {
              steps: [
                {
                  id: 'decide',
                  type: 'decide',
                  branches: [
                    { when: { path: 'applicant.country', in: ['KP'] }, outcome: 'decline', riskScore: 95 },
                  ],
                  otherwise: 'approve',
                },
              ],
            },
          },
        }),
      );
      expect(created.status, created.text).toBe(201);
      const published = await answer(
        client.POST('/workflow-definitions/{key}/publish', { params: { path: { key: 'greet' } } }),
      );
      expect(published.status, published.text).toBe(200);
      const started = await answer(
        client.POST('/workflow-runs', { body: { workflow: 'greet', subjectId: 'applicant-7' } }),
      );
      expect(started.status, started.text).toBe(201);
      const runId = started.body.id as string;
      expect((await settledRun(client, runId)).body.status).toBe('completed');

      // About ten seconds later (the hold), both arrive and verify.
      await expect
        .poll(() => (listener.stdout().match(/^verified /gm) ?? []).length, {
          timeout: 60_000,
          interval: 100,
        })
        .toBe(2);
      const printed = listener.stdout();
      expect(printed).not.toContain('NOT VERIFIED');
      const bodies = printed
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line));
      expect(bodies.map((b) => b.type).sort()).toEqual(['decision.created', 'run.completed']);
      expect(bodies.find((b) => b.type === 'decision.created')?.data).toMatchObject({
        outcome: 'approve',
        source: 'decide',
        workflowRunId: runId,
      });
      expect(bodies.find((b) => b.type === 'run.completed')?.resource).toEqual({
        type: 'workflow_run',
        id: runId,
      });

      await expect
        .poll(
          async () =>
            (
              await answer(
                client.GET('/webhook-deliveries', { params: { query: { status: ['delivered'] } } }),
              )
            ).body.total,
          { timeout: 30_000, interval: 100 },
        )
        .toBe(2);
      const related = await answer(
        client.GET('/workflow-runs/{id}/related', { params: { path: { id: runId } } }),
      );
      expect(related.status, related.text).toBe(200);
      expect(related.body.items.map((d: { event: string }) => d.event).sort()).toEqual([
        'decision.created',
        'run.completed',
      ]);

      // Ctrl-C: the endpoint goes, with its deliveries.
      signal(listener.child, 'SIGINT', false);
      const exit = await listener.exited;
      expect(exit.code, exit.stderr).toBe(0);
      expect(listener.stdout()).toContain(`endpoint ${endpointId} deleted\n`);
      const after = await answer(client.GET('/webhook-endpoints'));
      expect(after.body.items).toEqual([]);
    } finally {
      const { platform } = await stack.stop();
      expect(platform.code, platform.stderr).toBe(0);
    }
  }, 300_000);
});
