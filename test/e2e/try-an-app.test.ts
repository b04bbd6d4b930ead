// The README's "Try an app: http-connector against a vendor double", followed through the real
// processes a newcomer starts: `APP_RUNNER_ALLOW_PRIVATE_NETWORKS=true npm start` (embedded PostgreSQL
// under a temporary DATA_DIR, the release catalogue apps/build/release.json that `npm ci` builds),
// `npx app vendor-double --port <port>`, a token from `npx platform token`, then the README's calls in
// order, "Call it from a workflow and a rule set" included (a run on DBOS in the worker, its call through
// the runner) — on free ports instead of 3000 and 4010.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cleanUpProcesses, removeTempDirs } from '../support/processes.ts';
import { answer, settledRun, startReadmeStack } from './readme-stack.ts';

const SLOW = 180_000;
const SECRET = 'sk-demo-1234567890';

afterEach(cleanUpProcesses);
afterAll(removeTempDirs);

describe('README: try an app (http-connector against a vendor double)', () => {
  it(
    'installs http-connector, stores its key, enables, test-calls the vendor double with the key redacted, meters and audits it; calls it from a workflow run and a rule set',
    async () => {
      const startedAt = performance.now();
      const stack = await startReadmeStack('demo', 'apps-platform-e2e-try-');
      const { api, client } = stack;
      // Terminal 2: npx app vendor-double --port <port>
      const { vendor, host: vendorHost } = await stack.startVendor();

      const config = {
        baseUrl: `http://${vendorHost}`,
        auth: { type: 'apiKey', header: 'X-Api-Key' },
      };

      // 1. the release version of http-connector
      const versions = await answer(
        client.GET('/apps/{name}/versions', { params: { path: { name: 'http-connector' } } }),
      );
      expect(versions.status, versions.text).toBe(200);
      const versionId = versions.body.items[0].id as string;
      expect(versionId).toEqual(expect.any(String));

      // 2. install it, disabled, with an API key header; approve the vendor's host
      const installed = await answer(
        client.POST('/app-installs', {
          body: { name: 'vendor', versionId, enabled: false, config, approveHosts: [vendorHost] },
        }),
      );
      expect(installed.status, installed.text).toBe(201);
      expect(installed.body).toMatchObject({ name: 'vendor', enabled: false, missingSecrets: ['API_KEY'] });
      expect(installed.body.webhookUrl).toBeNull(); // http-connector receives no webhooks
      // An app that does: without WEBHOOK_PUBLIC_URL a development stack names its own printed address.
      const idvVersions = await answer(
        client.GET('/apps/{name}/versions', { params: { path: { name: 'identity-verification' } } }),
      );
      const idv = await answer(
        client.POST('/app-installs', {
          body: {
            name: 'idv',
            versionId: idvVersions.body.items[0].id,
            enabled: false,
            config: { baseUrl: `http://${vendorHost}` },
            approveHosts: [vendorHost],
          },
        }),
      );
      expect(idv.status, idv.text).toBe(201);
      expect(idv.body.webhookUrl).toBe(`${api}/webhooks/app-installs/${idv.body.id}`);

      // 3. store the secret (sealed; never answered), then enable
      const stored = await answer(
        client.POST('/app-installs/{install}/secrets/{secret}', {
          params: { path: { install: 'vendor', secret: 'API_KEY' } },
          body: { value: SECRET },
        }),
      );
      expect(stored.status, stored.text).toBe(200);
      expect(stored.body).toMatchObject({ storedSecrets: ['API_KEY'], missingSecrets: [] });
      expect(stored.text).not.toContain(SECRET);

      const enabled = await answer(
        client.PUT('/app-installs/{install}', {
          params: { path: { install: 'vendor' } },
          body: { versionId, enabled: true, config },
        }),
      );
      expect(enabled.status, enabled.text).toBe(200);
      expect(enabled.body).toMatchObject({ name: 'vendor', enabled: true });

      // 4. test-call it: the vendor double received the key; the answer shows [secret:API_KEY]
      const tested = await answer(
        client.POST('/app-installs/{install}/test', {
          params: { path: { install: 'vendor' } },
          body: { action: 'request', input: { method: 'GET', path: '/hello' } },
        }),
      );
      expect(tested.status, tested.text).toBe(200);
      expect(tested.body).toMatchObject({
        status: 'success',
        output: { status: 200, body: { received: { method: 'GET', path: '/hello' } } },
        durationMs: expect.any(Number),
        usage: { httpRequests: 1 },
      });
      expect(tested.body.output.body.received.headers['x-api-key']).toBe('[secret:API_KEY]');
      // Terminal 2 printed the request the vendor received, with the real key.
      await expect.poll(vendor.stderr).toMatch(/^\S+ GET \/hello \{"query":\{\},"headers":\{.*\}/m);
      const printed =
        vendor
          .stderr()
          .split('\n')
          .find((line) => line.includes(' GET /hello ')) ?? '';
      const received = JSON.parse(printed.slice(printed.indexOf('{')));
      expect(received.headers['x-api-key']).toBe(SECRET);

      // 5. the call is metered (calls and HTTP requests per day and action). Soft: the rest still runs
      // (and the test still fails) while the route is missing.
      const metering = await answer(
        client.GET('/app-installs/metering', { params: { query: { install: 'vendor' } } }),
      );
      expect.soft(metering.status, metering.text).toBe(200);
      expect
        .soft(metering.body?.items ?? [], metering.text)
        .toContainEqual(
          expect.objectContaining({ installName: 'vendor', action: 'request', calls: 1, httpRequests: 1 }),
        );

      // The audit trail: app.installed, app.secret.stored (never the value), app.configured, app.tested.
      const audit = await answer(client.GET('/audit-events', { params: { query: { action: 'app.' } } }));
      expect(audit.status, audit.text).toBe(200);
      const actions = (audit.body.items as { action: string }[]).map((event) => event.action);
      expect(actions).toEqual(
        expect.arrayContaining(['app.installed', 'app.secret.stored', 'app.configured', 'app.tested']),
      );

      // "Call it from a workflow and a rule set", continuing with the same install.
      // 6. a workflow: call the install (a literal input, the applicant's fields mapped into the query),
      // then decide
      const workflow = await answer(
        client.POST('/workflow-definitions', {
          body: {
            key: 'onboarding',
            body: {
              steps: [
                {
                  id: 'screen',
                  type: 'call_app',
                  install: 'vendor',
                  action: 'request',
                  input: { method: 'GET', path: '/screen' },
                  inputMapping: { 'query.name': 'applicant.name', 'query.country': 'applicant.country' },
                  outputKey: 'screening',
                },
                {
                  id: 'decide',
                  type: 'decide',
                  branches: [
                    {
                      when: { path: 'screening.body.received.query.country', in: ['KP', 'IR'] },
                      outcome: 'decline',
                      riskScore: 95,
                    },
                  ],
                  otherwise: 'approve',
                },
              ],
            },
          },
        }),
      );
      expect(workflow.status, workflow.text).toBe(201);
      expect(workflow.body).toMatchObject({
        kind: 'workflow',
        key: 'onboarding',
        version: 1,
        status: 'draft',
        installNames: ['vendor'],
        validation: { errors: [], warnings: [] },
      });
      const workflowPublished = await answer(
        client.POST('/workflow-definitions/{key}/publish', { params: { path: { key: 'onboarding' } } }),
      );
      expect(workflowPublished.status, workflowPublished.text).toBe(200);
      expect(workflowPublished.body).toMatchObject({ key: 'onboarding', version: 1, status: 'published' });

      // 7. run it on a subject, and poll the run until it is no longer running
      const started = await answer(
        client.POST('/workflow-runs', {
          body: {
            workflow: 'onboarding',
            subjectId: 'applicant-42',
            context: { applicant: { name: 'Ada Lovelace', country: 'GB' } },
          },
        }),
      );
      expect(started.status, started.text).toBe(201);
      expect(started.body).toMatchObject({ workflow: 'onboarding', version: 1, status: 'running' });
      const runId = started.body.id as string;
      const polled = await settledRun(client, runId);
      expect(polled.status, polled.text).toBe(200);
      expect(polled.body, polled.text).toMatchObject({ id: runId, status: 'completed', error: null });
      // The app's output under the step's outputKey, the decision under the decide step's id.
      expect(polled.body.context.screening).toMatchObject({
        status: 200,
        body: {
          received: {
            method: 'GET',
            path: '/screen',
            query: { name: 'Ada Lovelace', country: 'GB' },
            headers: { 'x-api-key': '[secret:API_KEY]' },
          },
        },
      });
      expect(polled.body.context.decide).toEqual({ outcome: 'approve', riskScore: null });
      expect(polled.body.steps).toEqual([
        expect.objectContaining({
          id: 'screen',
          type: 'call_app',
          status: 'completed',
          attempts: 1,
          error: null,
        }),
        expect.objectContaining({ id: 'decide', type: 'decide', status: 'completed', error: null }),
      ]);
      // Terminal 2 printed the step's request, with the real key.
      await expect.poll(vendor.stderr).toMatch(/^\S+ GET \/screen \{/m);
      const screened = JSON.parse(
        (
          vendor
            .stderr()
            .split('\n')
            .find((line) => line.includes(' GET /screen ')) ?? ''
        ).replace(/^\S+ GET \/screen /, ''),
      );
      expect(screened).toMatchObject({
        query: { name: 'Ada Lovelace', country: 'GB' },
        headers: { 'x-api-key': SECRET },
      });

      // 8. the run's invocation records: one per attempt of an app call
      const records = await answer(
        client.GET('/app-invocations', { params: { query: { workflowRunId: runId } } }),
      );
      expect(records.status, records.text).toBe(200);
      expect(records.body).toMatchObject({ total: 1, totalIsEstimate: false });
      expect(records.body.items).toEqual([
        expect.objectContaining({
          installName: 'vendor',
          appName: 'http-connector',
          action: 'request',
          workflowRunId: runId,
          stepId: 'screen',
          ruleSetKey: null,
          ruleKey: null,
          subjectId: 'applicant-42',
          idempotencyKey: `${runId}:screen`,
          attempt: 1,
          status: 'success',
          error: null,
          input: { method: 'GET', path: '/screen', query: { name: 'Ada Lovelace', country: 'GB' } },
          output: expect.objectContaining({ status: 200 }),
          usage: expect.objectContaining({ httpRequests: 1 }),
        }),
      ]);

      // 9. a rule set: a condition rule, and an app rule that fails when the vendor's answer names a
      // listed country
      const ruleSet = await answer(
        client.POST('/rule-sets', {
          body: {
            key: 'onboarding-checks',
            body: {
              rules: [
                { key: 'adult', type: 'condition', when: { path: 'applicant.age', gte: 18 } },
                {
                  key: 'sanctions',
                  type: 'app',
                  install: 'vendor',
                  action: 'request',
                  input: { method: 'GET', path: '/sanctions' },
                  inputMapping: { 'query.country': 'applicant.country' },
                  resultPath: 'body.received.query.country',
                  failWhen: { in: ['KP', 'IR'] },
                },
              ],
            },
          },
        }),
      );
      expect(ruleSet.status, ruleSet.text).toBe(201);
      expect(ruleSet.body).toMatchObject({
        kind: 'rule_set',
        version: 1,
        status: 'draft',
        validation: { errors: [], warnings: [] },
      });
      const ruleSetPublished = await answer(
        client.POST('/rule-sets/{key}/publish', { params: { path: { key: 'onboarding-checks' } } }),
      );
      expect(ruleSetPublished.status, ruleSetPublished.text).toBe(200);
      expect(ruleSetPublished.body).toMatchObject({ version: 1, status: 'published' });

      // 10. evaluate it against some data: the condition rule passes, the app rule fails on its value
      const evaluated = await answer(
        client.POST('/rule-sets/{key}/evaluate', {
          params: { path: { key: 'onboarding-checks' } },
          body: { data: { applicant: { age: 36, country: 'IR' } } },
        }),
      );
      expect(evaluated.status, evaluated.text).toBe(200);
      expect(evaluated.body).toEqual({
        ruleSet: { key: 'onboarding-checks', version: 1 },
        passed: false,
        rules: [
          { key: 'adult', type: 'condition', status: 'passed', value: 36 },
          { key: 'sanctions', type: 'app', status: 'failed', value: 'IR' },
        ],
      });
      // The rule's call left its own record, newest first.
      const ruleRecords = await answer(
        client.GET('/app-invocations', { params: { query: { install: 'vendor' } } }),
      );
      expect(ruleRecords.status, ruleRecords.text).toBe(200);
      expect(ruleRecords.body.total).toBe(2);
      expect(ruleRecords.body.items[0]).toMatchObject({
        installName: 'vendor',
        workflowRunId: null,
        stepId: null,
        ruleSetKey: 'onboarding-checks',
        ruleKey: 'sanctions',
        attempt: 1,
        status: 'success',
        idempotencyKey: expect.stringMatching(/^eval-[0-9a-f-]{36}:rule:sanctions$/),
        input: { method: 'GET', path: '/sanctions', query: { country: 'IR' } },
      });

      // The audit trail: the publishes, the decision and the run's end.
      const runAudit = await answer(client.GET('/audit-events', { params: { query: { limit: 100 } } }));
      expect(runAudit.status, runAudit.text).toBe(200);
      const runEvents = runAudit.body.items as { action: string; data: Record<string, unknown> }[];
      expect(runEvents.map((event) => event.action)).toEqual(
        expect.arrayContaining(['workflow.published', 'workflow.run.completed', 'rule_set.published']),
      );
      expect(runEvents.find((event) => event.action === 'decision.emitted')?.data).toEqual({
        outcome: 'approve',
        riskScore: null,
        source: 'decide',
        workflowRunId: runId,
        subjectId: 'applicant-42',
      });

      // Stop both: Ctrl-C to the platform's process group, SIGTERM to the vendor double.
      const { platform: platformExit, vendors } = await stack.stop();
      expect(platformExit.code, platformExit.stderr).toBe(0);
      expect(vendors[0]?.code, vendors[0]?.stderr).toBe(0);

      // The key went only to the vendor: no answer, audit row or platform output line holds it.
      for (const text of stack.answers) expect(text).not.toContain(SECRET);
      expect(platformExit.stdout).not.toContain(SECRET);
      expect(platformExit.stderr).not.toContain(SECRET);
      expect(platformExit.stderr).not.toMatch(/"level":"(error|fatal)"/);

      console.info(`README "Try an app" end to end: ${Math.round(performance.now() - startedAt)} ms`);
    },
    SLOW,
  );
});
