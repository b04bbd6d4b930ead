import type { Command } from 'commander';

export function registerTest(program: Command): void {
  program
    .command('test')
    .description('not built yet')
    .action(() => {
      throw new Error('app test is not built yet');
    });
}
