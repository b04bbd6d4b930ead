#!/usr/bin/env node
// The `ops` command for the deployment's operator. TypeScript sources run through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/ops/main.ts');
