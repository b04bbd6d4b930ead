#!/usr/bin/env node
// The `platform` command. TypeScript sources run through tsx, so a clone needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
