// A test call (docs/calls.md "Test call"): one attempt of one action, with the
// install's config, required secrets, approved hosts and cached values, enabled or not. No retries, no
// circuit, no invocation record; metered and quota-checked like any call. The one trace it leaves is the
// app.tested audit event (without input or output, which may hold applicants' data), written with the
// metering in one statement (test-call-write.ts).
import { actorOf } from '../audit/actor.ts';
import { auditEntryOf, type InstallContext, webhookUrl } from '../installs/index.ts';
import { type AttemptDeps, type AttemptOutcome, runAttempt } from './attempt.ts';
import { resolveCall } from './call-install.ts';
import { redactionMarksOf } from './redaction-marks.ts';

export interface TestCallBody {
  action: string;
  /** The route fills in {} when the body leaves it out. */
  input?: unknown;
}

/**
 * The answer of a test call: the attempt's result with its duration, usage and the module's log lines,
 * and the redaction placeholders it shows (what was redacted, and where).
 */
export function testCallAnswer(outcome: AttemptOutcome) {
  const { callId: _callId, ran: _ran, counted: _counted, invocationId: _invocationId, ...answer } = outcome;
  return { ...answer, redacted: redactionMarksOf(answer) };
}

export async function testInstall(
  ctx: InstallContext,
  deps: AttemptDeps,
  name: string,
  body: TestCallBody,
): Promise<AttemptOutcome> {
  // The install, its version, a block covering it, the tenant's quotas, its limits, its cached values and
  // its sealed secrets in one query.
  const { install, version, blockReason, limits, cache, secrets } = await resolveCall(
    ctx.database.db,
    ctx.principal.tenantId,
    name,
    body.action,
    {
      currentName: true,
    },
  );
  return runAttempt(
    deps,
    {
      install,
      version,
      action: body.action,
      input: body.input,
      idempotencyKey: null,
      subjectId: null,
      callbackUrl: webhookUrl(version.manifest, install.config, install.id, ctx.settings.webhookBase),
      mayReadDocuments: ctx.principal.permissions.has('documents:read'),
      blockReason,
      limits,
      cache,
      secrets,
    },
    {
      requireEnabled: false,
      actor: actorOf(ctx.principal),
      requestId: ctx.requestId,
      // Written with the call's metering, in one statement.
      audit: (ended) =>
        auditEntryOf(ctx, 'app.tested', install, {
          versionId: version.id,
          version: version.version,
          action: body.action,
          callId: ended.callId,
          status: ended.status,
          ...(ended.error ? { error: { code: ended.error.code, reason: ended.error.reason } } : {}),
          durationMs: ended.durationMs,
          usage: ended.usage,
        }),
    },
  );
}
