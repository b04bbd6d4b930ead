// The commands `platform`, `ops` and `app` as JavaScript: their TypeScript sources bundled by esbuild into
// node_modules/.cache/apps-platform-cli, split at every dynamic import() so that `--help` loads commander
// alone and a command loads its own code when it runs. Compiling the sources with tsx at every start cost
// 2 to 9 s a call; a fresh build loads in a fraction of that.
//
// Built at `npm ci` (prepare: `node scripts/cli-build.js`) and again by the first command whose sources
// changed since (bin/*.js call cliEntry): every input's size and modification time are recorded with the
// build, checked at each start (a few milliseconds), and any difference, a missing input or a missing
// build means building again before anything runs. A stale build is never used.
//
// Packages stay external (loaded from node_modules as usual, native ones included). `import.meta.url` and
// `import.meta.dirname` are replaced by the source file's own location, so code that finds files beside
// its source (migrations, the release catalogue, the sandbox bundle's entry) finds them as it did.
// Plain JavaScript: the bins import it before any TypeScript can load.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Bumped when what a build writes changes shape, so an older build is never taken for a fresh one. */
const FORMAT = 1;
/** What each command loads: its entry module. */
export const ENTRIES = {
  platform: 'src/main.ts',
  ops: 'src/ops/main.ts',
  app: 'src/app-cli/main.ts',
};
/**
 * Packages bundled rather than loaded from node_modules: Node 24 reads a module's package.json anew for each
 * file it loads, and drizzle-orm's is 179 KB over some 100 files (1.6 s of CPU for `platform token`, 0.2 s
 * on Node 20). Pure JavaScript, and only the platform's own code imports it.
 */
const BUNDLED = ['drizzle-orm'];
/** Inputs that change the output without being its sources: the compiler's options, the bundled packages' versions, esbuild and this file. */
const SETTINGS = [
  'tsconfig.json',
  ...BUNDLED.map((name) => `node_modules/${name}/package.json`),
  'node_modules/esbuild/package.json',
  'scripts/cli-build.js',
];
/** Builds older than this, other than the current one, are removed (a running process may still load chunks). */
const KEEP_OLD_BUILDS_MS = 24 * 60 * 60 * 1000;

/** The repository built from and its entries: this repository's unless a test gives another. */
const PROJECT = { root: ROOT, entries: ENTRIES };

const cacheOf = (root) => path.join(root, 'node_modules', '.cache', 'apps-platform-cli');
const manifestOf = (root) => path.join(cacheOf(root), 'build.json');

/**
 * The file URL of `name`'s entry in a build made from the current sources, building first when the
 * recorded build is missing or stale (with a line on standard error when it is a terminal).
 */
export async function cliEntry(name, stderr = process.stderr, project = PROJECT) {
  const dir = freshBuild(project) ?? (await rebuild(stderr, project));
  return pathToFileURL(path.join(dir, `${name}.js`)).href;
}

/** The current build's folder if every input it recorded is unchanged; else null. */
export function freshBuild(project = PROJECT) {
  const manifest = readManifest(project.root);
  if (manifest === null || manifest.format !== FORMAT) return null;
  if (!sameStamps(manifest.inputs, stampsOf(project.root, Object.keys(manifest.inputs)))) return null;
  const dir = path.join(cacheOf(project.root), manifest.dir);
  const built = Object.keys(project.entries).every((name) => fs.existsSync(path.join(dir, `${name}.js`)));
  return built ? dir : null;
}

function readManifest(root) {
  try {
    return JSON.parse(fs.readFileSync(manifestOf(root), 'utf8'));
  } catch {
    return null;
  }
}

/** `[size, mtimeMs]` of each file (relative to the root), or null for one that is absent. */
function stampsOf(root, files) {
  return Object.fromEntries(
    files.map((file) => {
      const stat = fs.statSync(path.join(root, file), { throwIfNoEntry: false });
      return [file, stat ? [stat.size, stat.mtimeMs] : null];
    }),
  );
}

/** Whether two records of the same inputs agree (an input absent in both agrees). Pure. */
export function sameStamps(recorded, now) {
  const files = Object.keys(recorded);
  if (files.length === 0 || files.length !== Object.keys(now).length) return false;
  return files.every((file) => {
    const [a, b] = [recorded[file], now[file]];
    if (a === null || b === null) return a === null && b === null;
    return Array.isArray(a) && Array.isArray(b) && a[0] === b[0] && a[1] === b[1];
  });
}

async function rebuild(stderr, project) {
  const started = Date.now();
  if (stderr.isTTY) stderr.write('building the commands from src/ (changed since the last build)…\n');
  try {
    const dir = await build(project);
    if (stderr.isTTY) stderr.write(`built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return dir;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`the commands could not be built into ${cacheOf(project.root)}: ${reason}`);
  }
}

/**
 * Bundles every entry into a new folder of the cache and makes it the current build. Each input's stamp
 * is taken before it is read, so an edit made while building shows at the next start. Two processes
 * building at once each make a whole build; the last to finish becomes the current one.
 */
export async function build(project = PROJECT) {
  const { build: esbuild, transform } = await import('esbuild');
  const cache = cacheOf(project.root);
  fs.mkdirSync(cache, { recursive: true });
  const name = `b-${Date.now().toString(36)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const stamps = stampsOf(project.root, SETTINGS);
  await esbuild({
    absWorkingDir: project.root,
    entryPoints: project.entries,
    outdir: path.join(cache, name),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    // Every package external (loaded from node_modules, native ones included) but BUNDLED's.
    plugins: [externalPackages(), sourceFiles(project.root, transform, stamps)],
    // Function and class names as written: DBOS names workflows and steps after their functions.
    keepNames: true,
    sourcemap: 'linked',
    // Its errors are in what it throws, which the command prints.
    logLevel: 'silent',
  });
  writeAtomically(
    manifestOf(project.root),
    `${JSON.stringify({ format: FORMAT, dir: name, inputs: stamps })}\n`,
  );
  removeOldBuilds(cache, name);
  return path.join(cache, name);
}

/** Bare imports stay imports (of node_modules at run time), but those of the BUNDLED packages. */
function externalPackages() {
  const bundled = (specifier) =>
    BUNDLED.some((name) => specifier === name || specifier.startsWith(`${name}/`));
  return {
    name: 'apps-platform-external-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) =>
        bundled(args.path) ? undefined : { path: args.path, external: true },
      );
    },
  };
}

/** Loads the repository's own sources: stamps each, and gives those that ask where they are their place. */
function sourceFiles(root, transform, stamps) {
  return {
    name: 'apps-platform-sources',
    setup(build) {
      build.onLoad({ filter: /./ }, async (args) => {
        const file = path.relative(root, args.path);
        if (file.startsWith('..') || file.split(path.sep).includes('node_modules')) return undefined;
        Object.assign(stamps, stampsOf(root, [file]));
        // Anything else (JSON) esbuild reads itself, after the stamp.
        if (!/\.[cm]?[jt]s$/.test(file)) return undefined;
        const text = fs.readFileSync(args.path, 'utf8');
        const loader = /\.[cm]?ts$/.test(file) ? 'ts' : 'js';
        if (!text.includes('import.meta')) return { contents: text, loader };
        // esbuild's define replaces the expressions in code only, never inside a string or template.
        const placed = await transform(text, {
          loader,
          format: 'esm',
          sourcefile: args.path,
          sourcemap: 'inline',
          define: {
            'import.meta.url': JSON.stringify(pathToFileURL(args.path).href),
            'import.meta.dirname': JSON.stringify(path.dirname(args.path)),
            'import.meta.filename': JSON.stringify(args.path),
          },
        });
        return { contents: placed.code, loader: 'js' };
      });
    },
  };
}

function writeAtomically(file, text) {
  const partial = `${file}.${process.pid}.partial`;
  fs.writeFileSync(partial, text);
  fs.renameSync(partial, file);
}

function removeOldBuilds(cache, current) {
  for (const entry of fs.readdirSync(cache, { withFileTypes: true })) {
    if (!entry.isDirectory() || !entry.name.startsWith('b-') || entry.name === current) continue;
    const dir = path.join(cache, entry.name);
    const age = Date.now() - fs.statSync(dir).mtimeMs;
    if (age > KEEP_OLD_BUILDS_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
}

// `node scripts/cli-build.js` (npm ci's prepare, `npm run build:cli`): build now, whatever is recorded.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const dir = await build();
  process.stdout.write(
    `commands built in ${path.relative(process.cwd(), dir)} (${Date.now() - started} ms)\n`,
  );
}
