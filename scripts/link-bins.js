// Links the repository's commands, `platform`, `app` and `ops`, into node_modules/.bin, so `npx platform`, `npx ops` and
// `npx app` run them at once from anywhere in the clone. They are deliberately not package.json `bin`
// entries: npm links only dependencies' bins, and npx, seeing the project's own `bin` name the command,
// installs the whole clone into its cache first (building the release apps again: about a minute,
// silent). Run by `npm ci` (prepare).
import fs from 'node:fs/promises';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN_DIR = path.join(ROOT, 'node_modules', '.bin');
const COMMANDS = { platform: 'bin/platform.js', app: 'bin/app.js', ops: 'bin/ops.js' };

await fs.mkdir(BIN_DIR, { recursive: true });
for (const [name, file] of Object.entries(COMMANDS)) {
  const link = path.join(BIN_DIR, name);
  await fs.rm(link, { force: true });
  await fs.symlink(path.relative(BIN_DIR, path.join(ROOT, file)), link);
}
