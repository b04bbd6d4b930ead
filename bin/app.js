#!/usr/bin/env node
// The `app` command for app authors: new, build, test. TypeScript sources run through tsx.
import { register } from 'tsx/esm/api';

register();
// Before the command's module graph loads (see the file).
await import('../src/runner/quiet-wasi.js');
await import('../src/app-cli/main.ts');
