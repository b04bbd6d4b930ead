#!/usr/bin/env node
// The `platform` command, from the build of its sources (scripts/cli-build.js: made at `npm ci`, made
// again first whenever a source changed since).
import { cliEntry } from '../scripts/cli-build.js';

await import(await cliEntry('platform'));
