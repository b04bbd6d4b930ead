// `ops apps list`: every app version with its publisher, status, hash, hosts, needs, latest review, block,
// provenance and the installs running it (docs/operations.md "ops apps list").
// Past the installs' front door: a listing command loads only what it uses (scripts/cli-build.js).

import { type Command, Option } from 'commander';
import { listVersionsForOperator, type OperatorVersionFilter } from '../catalogue/operator-lists.ts';
import { signerOf } from '../catalogue/operator-rules.ts';
import { runningInstalls } from '../installs/running-store.ts';
import {
  blockText,
  INSTALLS_NAMED,
  installsSummary,
  provenanceText,
  publisherText,
  reviewText,
} from './apps-format.ts';
import { opsCommand, runs, tenantArg } from './commands.ts';
import { table } from './output.ts';
import type { OpsIO } from './runtime.ts';

const STATUSES = ['uploaded', 'published', 'withdrawn'] as const;

interface ListOptions {
  json?: boolean;
  tenant?: string;
  platform?: boolean;
  app?: string;
  status?: (typeof STATUSES)[number];
  unsigned?: boolean;
  untrusted?: boolean;
  signer?: string;
}

export function registerAppsList(apps: Command, io: OpsIO): void {
  opsCommand(
    apps,
    'list',
    `every app version: publisher, status, hash, hosts, needs, latest review, block, provenance and installs (the first ${INSTALLS_NAMED} named; --json lists each with its approved hosts)`,
  )
    .addOption(
      new Option('--tenant <tenant>', "only this tenant's versions (its name or id)").conflicts('platform'),
    )
    .option('--platform', "only the platform's versions")
    .option('--app <name>', 'only the versions of this app')
    .addOption(new Option('--status <status>', 'only versions in this status').choices(STATUSES))
    .option('--unsigned', 'only versions without provenance')
    .option('--untrusted', 'only versions whose signer the signature policy does not trust')
    .option('--signer <name>', 'only versions signed by this signer')
    .action(
      runs<ListOptions>(io, async (session, _args, options) => {
        const db = session.database.db;
        const tenant = options.tenant === undefined ? undefined : await tenantArg(db, options.tenant);
        const filter: OperatorVersionFilter = {
          ...(tenant ? { publisher: { tenantId: tenant.id } } : {}),
          ...(options.platform ? { publisher: { platform: true } } : {}),
          ...(options.app !== undefined ? { appName: options.app } : {}),
          ...(options.status ? { status: options.status } : {}),
          provenance: {
            ...(options.unsigned ? { unsigned: true } : {}),
            ...(options.untrusted ? { untrusted: true } : {}),
            ...(options.signer !== undefined ? { signer: options.signer } : {}),
          },
        };
        const items = await listVersionsForOperator(db, runningInstalls, filter, (done, total) =>
          session.progress('reading versions', done, total),
        );
        session.print({ items }, () =>
          table(items, [
            { header: 'PUBLISHER', value: publisherText },
            { header: 'APP', value: (v) => v.name },
            { header: 'VERSION', value: (v) => v.version },
            { header: 'ID', value: (v) => v.id },
            { header: 'STATUS', value: (v) => v.status },
            { header: 'SHA256', value: (v) => v.sha256 },
            { header: 'HOSTS', value: (v) => v.hosts },
            { header: 'NEEDS', value: (v) => v.needs },
            { header: 'REVIEW', value: (v) => reviewText(v.review) },
            { header: 'BLOCK', value: (v) => blockText(v.block) },
            { header: 'PROVENANCE', value: (v) => provenanceText(v.provenance, signerOf(v.provenance)) },
            { header: 'INSTALLS', value: (v) => installsSummary(v.installs) },
          ]),
        );
      }),
    );
}
