// Starts the longest files first, by the times `npm run test:profile` last measured (test/file-times.json),
// so that the run does not end on one long file while the other worker has nothing left. Vitest's own
// order needs times from an earlier run on the same machine, which a clean clone (CI) never has. A file
// not measured yet counts as a middling one; a stale time only changes the order.
import fs from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const FILE_TIMES = path.resolve(import.meta.dirname, '../file-times.json');
const UNMEASURED_MS = 5_000;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const times = readTimes();
    const root = this.ctx.config.root;
    const timeOf = (file: TestSpecification) => times[path.relative(root, file.moduleId)] ?? UNMEASURED_MS;
    return [...(await super.sort(files))].sort((a, b) => timeOf(b) - timeOf(a));
  }
}

function readTimes(): Record<string, number> {
  try {
    return JSON.parse(fs.readFileSync(FILE_TIMES, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}
