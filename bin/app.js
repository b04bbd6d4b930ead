#!/usr/bin/env node
// The `app` command for app authors: new, build, test, from the build of its sources (scripts/cli-build.js).
import { cliEntry } from '../scripts/cli-build.js';

await import(await cliEntry('app'));
