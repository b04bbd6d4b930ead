// `ops platform`: the platform's versions outside a release (docs/operations.md "ops platform list",
// "publish", "withdraw", "restore"). The changes live in src/catalogue/platform-versions.ts; this file
// reads the command line and prints.

import fs from 'node:fs/promises';
import { type Command, Option } from 'commander';
import {
  listPlatformVersions,
  type PlatformModule,
  type PlatformVersion,
  publishPlatformVersion,
  restorePlatformVersion,
  withdrawPlatformVersion,
} from '../catalogue/platform-versions.ts';
import { verifiedRecord } from '../catalogue/provenance/provenance-store.ts';
import { releaseManifest } from '../catalogue/release.ts';
import { ApiError } from '../http/errors.ts';
import { runningInstalls } from '../installs/index.ts';
import { provenanceView, rootLoader } from '../provenance/index.ts';
import { createModuleStorage } from '../storage/index.ts';
import { nameAtVersion } from './args.ts';
import { changeCommand, opsCommand, runs } from './commands.ts';
import { GROUPS } from './groups.ts';
import { record, table } from './output.ts';
import { inspectPlatformModule, readModuleArgument } from './platform-module.ts';
import { rollBack, rollbackText } from './rollback.ts';
import { OpsFailure, type OpsIO, type OpsSession } from './runtime.ts';

interface ListOptions {
  json?: boolean;
  app?: string;
  status?: 'published' | 'withdrawn';
  source?: 'release' | 'operator';
}

interface PublishOptions {
  json?: boolean;
  by: string;
  newApp?: boolean;
  bundle?: string;
}

interface WithdrawOptions {
  json?: boolean;
  by: string;
  reason?: string;
}

const versionTable = (items: readonly PlatformVersion[]) =>
  table(items, [
    { header: 'NAME', value: (v) => v.name },
    { header: 'VERSION', value: (v) => v.version },
    { header: 'SOURCE', value: (v) => v.platformSource },
    { header: 'STATUS', value: (v) => v.status },
    { header: 'BY_OPERATOR', value: (v) => (v.withdrawnByOperator ? 'withdrawn' : '') },
    { header: 'INSTALLS', value: (v) => v.installs },
    { header: 'SHA256', value: (v) => v.sha256 },
  ]);

const versionRecord = (v: PlatformVersion, extra: [string, unknown][] = []) =>
  record([
    ['name', v.name],
    ['version', v.version],
    ['id', v.id],
    ['source', v.platformSource],
    ['status', v.status],
    ['sha256', v.sha256],
    ['installs', v.installs],
    ...extra,
  ]);

/** The deployment's module storage, as the api makes it from the same settings. */
function storageOf(session: OpsSession) {
  const storage = createModuleStorage(session.config);
  if (!storage)
    throw new OpsFailure(
      'apps_unavailable',
      'this deployment has no module storage (MODULE_STORAGE=off): there is nowhere to put the module',
    );
  return storage;
}

/**
 * --bundle: the bundle verified against the module being published, as the api verifies one
 * (docs/provenance.md); refused while APP_SIGNATURES is off (signatures_off).
 */
async function bundleRecord(session: OpsSession, file: string, module: PlatformModule) {
  if (session.config.appSignatures === 'off')
    throw new OpsFailure('signatures_off', 'APP_SIGNATURES is off: this deployment takes no bundle');
  let json: unknown;
  try {
    json = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    throw new ApiError('provenance_invalid', 'the bundle file is not JSON', { reason: 'malformed' });
  }
  const subject = { module: module.bytes, sha256: module.sha256 };
  return verifiedRecord(json, subject, rootLoader(session.config.provenance));
}

function registerList(platform: Command, io: OpsIO) {
  opsCommand(platform, 'list', 'platform versions, release and operator, by name, highest version first')
    .option('--app <name>', 'versions of this app only')
    .addOption(
      new Option('--status <status>', 'versions in this status only').choices(['published', 'withdrawn']),
    )
    .addOption(
      new Option('--source <source>', 'versions of this source only').choices(['release', 'operator']),
    )
    .action(
      runs<ListOptions>(io, async (session, _args, options) => {
        const items = await listPlatformVersions(session.database.db, runningInstalls, {
          ...(options.app ? { app: options.app } : {}),
          ...(options.status ? { status: options.status } : {}),
          ...(options.source ? { source: options.source } : {}),
        });
        session.print({ items }, () => versionTable(items));
      }),
    );
}

function registerPublish(platform: Command, io: OpsIO) {
  changeCommand(
    platform,
    'publish',
    'publish a module as a platform version outside a release (source operator)',
  )
    .argument(
      '<module>',
      'a module file (as app build writes it), an app directory (holding assembly/index.ts), or - for standard input',
    )
    .option('--new-app', 'create the app: required when the platform has no version of it, refused otherwise')
    .option(
      '--bundle <file>',
      'a Sigstore bundle proving the module (verified and recorded; refused while APP_SIGNATURES is off)',
    )
    .action(
      runs<PublishOptions>(io, async (session, [argument], options) => {
        if (options.bundle !== undefined && session.config.appSignatures === 'off')
          throw new OpsFailure('signatures_off', 'APP_SIGNATURES is off: this deployment takes no bundle');
        const storage = storageOf(session);
        try {
          const module = await inspectPlatformModule(await readModuleArgument(argument as string, io));
          const provenance =
            options.bundle === undefined ? undefined : await bundleRecord(session, options.bundle, module);
          const version = await publishPlatformVersion(
            { database: session.database, storage },
            { ...module, ...(provenance ? { provenance } : {}) },
            { by: options.by, newApp: options.newApp === true },
          );
          session.print(
            provenance ? { version, provenance: provenanceView(provenance) } : { version },
            () => `published ${version.name}@${version.version}\n${versionRecord(version)}`,
          );
        } finally {
          storage.close?.();
        }
      }),
    )
    .addHelpText(
      'after',
      `
The module must carry the memory maximum its manifest names (the module app build writes does).
An app directory is built as the release build builds each app, unless app build left an up-to-date
build in <dir>/build. Refused: app_blocked (module or app blocked), conflict (the version exists in any
status; --new-app for an app that exists; a new app under a name a tenant's own app has), not_found
(no such platform app without --new-app), validation_error (not a module the platform runs).

Examples:
  ops platform publish apps/build/kyc-vendor-1.0.0.wasm --new-app --by grace
  ops platform publish - --by grace < kyc-vendor-1.1.0.wasm`,
    );
}

function registerWithdraw(platform: Command, io: OpsIO) {
  changeCommand(platform, 'withdraw', 'withdraw a published platform version; installs keep running it')
    .argument('<name@version>', 'the version, such as kyc-vendor@1.1.0')
    .option('--reason <text>', 'why, recorded in the audit trails')
    .action(
      runs<WithdrawOptions>(io, async (session, [argument], options) => {
        const target = nameAtVersion(argument as string);
        const withdrawn = await withdrawPlatformVersion(session.database, runningInstalls, target, {
          by: options.by,
          reason: options.reason ?? null,
        });
        const rollback = await rollBack(session, withdrawn.rollback);
        session.print(
          { version: withdrawn.version, installs: withdrawn.installs, rollback },
          () =>
            `withdrawn ${target.name}@${target.version}; no release start-up republishes it\n${versionRecord(
              withdrawn.version,
              [['withdrawn by operator', withdrawn.version.withdrawnByOperator]],
            )}${rollbackText(rollback)}`,
        );
      }),
    )
    .addHelpText(
      'after',
      `
Refused: not_found (no such platform version), conflict (it is not published).

Example:
  ops platform withdraw kyc-vendor@1.1.0 --reason "answers the wrong schema" --by grace`,
    );
}

function registerRestore(platform: Command, io: OpsIO) {
  changeCommand(platform, 'restore', 'publish a withdrawn platform version again')
    .argument('<name@version>', 'the version, such as kyc-vendor@1.1.0')
    .action(
      runs<WithdrawOptions>(io, async (session, [argument], options) => {
        const target = nameAtVersion(argument as string);
        const version = await restorePlatformVersion(session.database, runningInstalls, target, {
          by: options.by,
          release: (name, v) => releaseManifest(session.config.releaseIndex, name, v),
        });
        session.print(
          { version },
          () => `restored ${target.name}@${target.version}\n${versionRecord(version)}`,
        );
      }),
    )
    .addHelpText(
      'after',
      `
The version becomes the release's (source release) when the running release catalogue (RELEASE_INDEX)
carries it with the same manifest, else the operator's (source operator: no release withdraws it).
Refused: not_found (no such platform version), conflict (it is not withdrawn), app_blocked.

Example:
  ops platform restore kyc-vendor@1.1.0 --by grace`,
    );
}

export function registerPlatform(program: Command, io: OpsIO): void {
  const platform = program.command('platform').description(GROUPS.platform);
  registerList(platform, io);
  registerPublish(platform, io);
  registerWithdraw(platform, io);
  registerRestore(platform, io);
}
