#!/usr/bin/env node
// The `platform` command, from the build of its sources (scripts/cli-build.js: made at `npm ci`, made
// again first whenever a source changed since).
import { cliEntry } from '../scripts/cli-build.js';

// Before anything imports `pg`: its client is instrumented as it loads (only when telemetry is on).
await import(await cliEntry('preload'));
await import(await cliEntry('platform'));
