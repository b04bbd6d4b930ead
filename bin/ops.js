#!/usr/bin/env node
// The `ops` command for the deployment's operator, from the build of its sources (scripts/cli-build.js).
import { cliEntry } from '../scripts/cli-build.js';

await import(await cliEntry('ops'));
