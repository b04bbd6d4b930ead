#!/usr/bin/env node
// The `app` command for app authors: new, build, test. TypeScript sources run through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/app-cli/main.ts');
