#!/usr/bin/env node
// The `platform` command. TypeScript sources run through tsx, so a clone needs no build step.
import { register } from 'tsx/esm/api';

register();
// Before the command's module graph loads: Node warns about WASI while it links `node:wasi`, before any
// module of that graph runs, so a filter imported inside the graph comes too late.
await import('../src/runner/quiet-wasi.js');
await import('../src/main.ts');
