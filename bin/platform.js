#!/usr/bin/env node
// The `platform` command. TypeScript sources run through tsx, so a clone needs no build step.
import { register } from 'tsx/esm/api';

register();
// Before anything imports `pg`: its client is instrumented as it loads (only when telemetry is on).
await import('../src/telemetry/preload.ts');
await import('../src/main.ts');
