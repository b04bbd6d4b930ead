import type { Command } from 'commander';

export function registerNew(program: Command): void {
  program
    .command('new')
    .description('not built yet')
    .action(() => {
      throw new Error('app new is not built yet');
    });
}
