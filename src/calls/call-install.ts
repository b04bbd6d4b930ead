// STAND-IN (runs-r worktree): the real callInstall (names and aliases, invocation records) lands from
// another worktree; the lead keeps that one at merge. Only the signature and its meaning are relied on:
// refusals throw ApiError, otherwise the attempt's outcome is answered.
import { requireInstall, versionById } from '../installs/service.ts';
import { type AttemptDeps, type AttemptOutcome, runAttempt } from './attempt.ts';
import type { InvocationContext } from './invocations.ts';

export async function callInstall(
  deps: AttemptDeps,
  call: {
    tenantId: string;
    install: string;
    action: string;
    input: unknown;
    idempotencyKey: string | null;
    subjectId: string | null;
    timeoutMs?: number;
    record: InvocationContext;
  },
): Promise<AttemptOutcome> {
  const db = deps.database.db;
  const install = await requireInstall(db, call.tenantId, call.install, false);
  const version = await versionById(db, install.versionId);
  return runAttempt(
    deps,
    {
      install,
      version,
      action: call.action,
      input: call.input,
      idempotencyKey: call.idempotencyKey,
      subjectId: call.subjectId,
      callbackUrl: null,
      mayReadDocuments: false,
      ...(call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs } : {}),
    },
    { requireEnabled: true },
  );
}
