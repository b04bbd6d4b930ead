// `ops apps reviews` and `apps review approve|reject <versionId>` (docs/operations.md "ops apps review"):
// the operator's reviews of tenants' versions, listed oldest first and decided. Approving publishes in
// the same transaction unless the version is blocked, no longer uploaded, or (under APP_SIGNATURES
// required) not from a trusted signer.
import { type Command, Option } from 'commander';
import { listReviews } from '../catalogue/operator-lists.ts';
import { decideReviewOfVersion } from '../catalogue/reviews.ts';
import { blockText } from './apps-format.ts';
import { changeCommand, opsCommand, runs } from './commands.ts';
import { escapeText, table } from './output.ts';
import { type OpsIO, OpsUsageError } from './runtime.ts';

interface DecideOptions {
  json?: boolean;
  by: string;
  comment?: string;
}

export function registerAppsReviews(apps: Command, io: OpsIO): void {
  opsCommand(apps, 'reviews', 'the operator reviews, oldest first: the pending ones, or every one with --all')
    .option('--all', 'include decided and withdrawn reviews')
    .action(
      runs<{ json?: boolean; all?: boolean }>(io, async (session, _args, options) => {
        const items = await listReviews(session.database.db, { all: options.all === true });
        session.print({ items }, () =>
          table(items, [
            { header: 'VERSION ID', value: (r) => r.versionId },
            { header: 'TENANT', value: (r) => r.tenant },
            { header: 'APP', value: (r) => r.name },
            { header: 'VERSION', value: (r) => r.version },
            { header: 'STATUS', value: (r) => r.status },
            { header: 'REQUESTED BY', value: (r) => r.requestedBy },
            { header: 'REQUESTED AT', value: (r) => r.requestedAt },
            { header: 'DECIDED BY', value: (r) => r.decidedBy },
            { header: 'COMMENT', value: (r) => r.comment },
            { header: 'BLOCK', value: (r) => blockText(r.block) },
          ]),
        );
      }),
    );

  const review = apps.command('review').description("decides a version's pending operator review");
  const decide = (decision: 'approved' | 'rejected') =>
    runs<DecideOptions>(io, async (session, [versionId], options) => {
      if (decision === 'rejected' && options.comment?.trim() === '')
        throw new OpsUsageError('--comment: a rejection needs a comment');
      const decided = await decideReviewOfVersion(session.database, {
        versionId: versionId as string,
        decision,
        by: options.by,
        comment: options.comment ?? null,
        signatures: session.config.appSignatures,
      });
      const verb = decision === 'approved' ? 'approved and published' : 'rejected';
      session.print(
        { review: decided },
        () => `${verb}: version ${escapeText(decided.versionId)} (review ${decided.id})\n`,
      );
    });

  changeCommand(
    review,
    'approve',
    'approves the review and publishes the version, in one transaction (refused when blocked, no longer uploaded, or untrusted under APP_SIGNATURES required)',
  )
    .argument('<versionId>', 'the id of the version under review (apps reviews lists them)')
    .option('--comment <text>', 'a comment the tenant reads')
    .action(decide('approved'));

  changeCommand(
    review,
    'reject',
    'rejects the review; the version stays uploaded and the tenant reads the comment',
  )
    .argument('<versionId>', 'the id of the version under review (apps reviews lists them)')
    .addOption(new Option('--comment <text>', 'why: the tenant reads it (required)').makeOptionMandatory())
    .action(decide('rejected'));
}
