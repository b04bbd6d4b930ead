// `ops tenants`: being built.
import type { Command } from 'commander';
import type { OpsIO } from './runtime.ts';

export function registerTenants(program: Command, _io: OpsIO): void {
  program.command('tenants').description('tenants');
}
