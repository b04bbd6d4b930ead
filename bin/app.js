#!/usr/bin/env node
// The `app` command for app authors: new, build, test. TypeScript sources run through tsx.
import { register } from 'tsx/esm/api';

// Node says once, as the sandbox library loads, that WASI is experimental: nothing an author acts on,
// and it would stand between a command and its one line of output.
const warningListeners = process.listeners('warning');
process.removeAllListeners('warning');
process.on('warning', (warning) => {
  if (warning.name === 'ExperimentalWarning' && warning.message.includes('WASI')) return;
  for (const listener of warningListeners) listener(warning);
});

register();
await import('../src/app-cli/main.ts');
