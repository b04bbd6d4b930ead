// `ops platform`: being built.
import type { Command } from 'commander';
import type { OpsIO } from './runtime.ts';

export function registerPlatform(program: Command, _io: OpsIO): void {
  program.command('platform').description('platform');
}
