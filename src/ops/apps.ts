// `ops apps`: the operator's view of the catalogue and its changes (docs/operations.md "ops apps …") —
// every version with its installs, blocks, reviews, and the withdraw of a tenant's version.
import type { Command } from 'commander';
import { registerAppsBlocks } from './apps-blocks.ts';
import { registerAppsList } from './apps-list.ts';
import { registerAppsReviews } from './apps-reviews.ts';
import { registerAppsVersions } from './apps-versions.ts';
import { GROUPS } from './groups.ts';
import type { OpsIO } from './runtime.ts';

export function registerApps(program: Command, io: OpsIO): void {
  const apps = program.command('apps').description(GROUPS.apps);
  registerAppsList(apps, io);
  registerAppsBlocks(apps, io);
  registerAppsReviews(apps, io);
  registerAppsVersions(apps, io);
}
