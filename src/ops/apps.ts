// `ops apps`: being built.
import type { Command } from 'commander';
import type { OpsIO } from './runtime.ts';

export function registerApps(program: Command, _io: OpsIO): void {
  program.command('apps').description('apps');
}
