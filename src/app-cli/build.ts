import type { Command } from 'commander';

export function registerBuild(program: Command): void {
  program
    .command('build')
    .description('not built yet')
    .action(() => {
      throw new Error('app build is not built yet');
    });
}
