// The README's step 1 of "Try an asynchronous verification", shared by the walkthroughs that need it: the
// release version of identity-verification installed as `idv`, disabled, against its vendor double; its
// two secrets stored; then enabled. Each answer is checked as it comes and handed back for more.
import { expect } from 'vitest';
import { type Answer, answer, type ReadmeStack } from './readme-stack.ts';

/** The README's workflow step starting a verification on `idv` with the applicant's names. */
export const VERIFY_STEP = {
  id: 'verify',
  type: 'call_app' as const,
  install: 'idv',
  action: 'start_verification',
  inputMapping: { firstName: 'applicant.firstName', lastName: 'applicant.lastName' },
  outputKey: 'verification',
};

/** The README's `kyc` workflow: verify, then approve on the vendor's approval, else decline. */
export const KYC_WORKFLOW = {
  steps: [
    VERIFY_STEP,
    {
      id: 'decide',
      type: 'decide' as const,
      branches: [
        { when: { path: 'verification.decision', equals: 'approved' }, outcome: 'approve' as const },
      ],
      otherwise: 'decline' as const,
    },
  ],
};

const ok = (reply: Answer, status = 200) => expect(reply.status, reply.text).toBe(status);

export async function installIdv(
  stack: ReadmeStack,
  host: string,
  secrets: { apiKey: string; webhookSecret: string },
): Promise<{ versionId: string; config: { baseUrl: string }; installed: Answer; enabled: Answer }> {
  const { client } = stack;
  const config = { baseUrl: `http://${host}` };
  const versions = await answer(
    client.GET('/apps/{name}/versions', { params: { path: { name: 'identity-verification' } } }),
  );
  ok(versions);
  const versionId = versions.body.items[0].id as string;
  const installed = await answer(
    client.POST('/app-installs', {
      body: { name: 'idv', versionId, enabled: false, config, approveHosts: [host] },
    }),
  );
  ok(installed, 201);
  for (const [secret, value] of [
    ['API_KEY', secrets.apiKey],
    ['WEBHOOK_SECRET', secrets.webhookSecret],
  ] as const) {
    ok(
      await answer(
        client.POST('/app-installs/{install}/secrets/{secret}', {
          params: { path: { install: 'idv', secret } },
          body: { value },
        }),
      ),
    );
  }
  const enabled = await answer(
    client.PUT('/app-installs/{install}', {
      params: { path: { install: 'idv' } },
      body: { versionId, enabled: true, config },
    }),
  );
  ok(enabled);
  return { versionId, config, installed, enabled };
}
