// The files `app new` writes: a small app on the SDK (one synchronous action), its conformance samples,
// a vitest test through the author test loader, and a README. Imports of this repository's tooling are
// written relative to the new app, so its test runs wherever the app directory was created.

export interface ScaffoldInput {
  name: string;
  title: string;
  /** Path from <dir>/test to this repository's root, with forward slashes. */
  repoFromTest: string;
  /** How the README names the app directory in commands. */
  dirForCommands: string;
}

export function appSource({ name, title }: ScaffoldInput): string {
  return `// ${name}: an Apps Platform app written with @apps-platform/app-sdk (see docs/writing-apps.md).
import { Actions, Answer, error, InvokeRequest, ok, runInvoke, sendManifest, Value } from '@apps-platform/app-sdk';

// What the platform reads at upload, and \`app build\` checks with the same strict parser. A field the
// platform does not know, at any depth outside the JSON Schemas, refuses the module.
const MANIFEST = \`{
  "interface": 2,
  "name": "${name}",
  "version": "0.1.0",
  "title": ${JSON.stringify(title)},
  "description": "Greets someone by name: the smallest app that builds and passes its conformance check.",
  "configSchema": {
    "type": "object",
    "properties": { "greeting": { "type": "string", "minLength": 1, "maxLength": 40 } },
    "additionalProperties": false
  },
  "actions": [
    {
      "name": "greet",
      "description": "Answers a greeting for the name given.",
      "input": {
        "type": "object",
        "required": ["name"],
        "properties": { "name": { "type": "string", "minLength": 1, "maxLength": 100 } },
        "additionalProperties": false
      },
      "output": {
        "type": "object",
        "required": ["message"],
        "properties": { "message": { "type": "string" } },
        "additionalProperties": false
      },
      "timeoutMs": 5000,
      "idempotent": true
    }
  ]
}\`;

export function manifest(): i32 {
  return sendManifest(MANIFEST);
}

function greet(request: InvokeRequest): Answer {
  const name = request.input.getString('name');
  if (name.length == 0) return error('input.name must be a non-empty string');
  const greeting = request.config.getString('greeting', 'Hello');
  return ok(Value.object().setString('message', greeting + ', ' + name + '!'));
}

const ACTIONS = new Actions().on('greet', greet);

export function invoke(): i32 {
  return runInvoke(ACTIONS);
}
`;
}

export function conformanceJson(): string {
  const setup = {
    config: { greeting: 'Hello' },
    samples: [{ action: 'greet', input: { name: 'Ada' } }],
  };
  return `${JSON.stringify(setup, null, 2)}\n`;
}

export function testSource({ name, repoFromTest }: ScaffoldInput): string {
  return `// Tests of ${name} through the platform's real host (the author test loader of packages/app-testing).
// Run them from the repository: npx vitest run --root <this app's directory>
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkConformance, type LoadedApp, loadApp } from '${repoFromTest}/packages/app-testing/src/index.ts';
import { compileApp } from '${repoFromTest}/src/app-cli/compile.ts';

const dir = path.resolve(import.meta.dirname, '..');
let module: Uint8Array;
let app: LoadedApp;

beforeAll(async () => {
  module = await compileApp(dir);
  app = await loadApp(module, { config: { greeting: 'Hi' } });
}, 120_000);

afterAll(async () => {
  await app?.close();
});

it('greets by name with the configured greeting', async () => {
  const { answer } = await app.invoke('greet', { name: 'Ada' });
  expect(answer).toEqual({ status: 'ok', output: { message: 'Hi, Ada!' } });
});

it('refuses an unknown action', async () => {
  const { answer } = await app.invoke('wave', {});
  expect(answer).toMatchObject({ status: 'error' });
});

it('passes the conformance check', async () => {
  const report = await checkConformance(module, {
    config: { greeting: 'Hello' },
    samples: [{ action: 'greet', input: { name: 'Grace' } }],
  });
  expect(report.checks.filter((check) => !check.passed)).toEqual([]);
});
`;
}

export function readme({ name, title, dirForCommands: dir }: ScaffoldInput): string {
  return `# ${title}

\`${name}\` is an Apps Platform app: a WebAssembly module written in AssemblyScript with
\`@apps-platform/app-sdk\`. Writing apps is described in \`docs/writing-apps.md\` of the platform repository.

| File | What it is |
|---|---|
| \`assembly/index.ts\` | the app: its manifest and the \`manifest\` and \`invoke\` exports |
| \`conformance.json\` | the conformance check's install config and samples (\`app test\`) |
| \`test/app.test.ts\` | tests through the platform's real host |
| \`vitest.config.mjs\` | this app's vitest settings, used by \`--root\` (not the repository's) |

## Build, check, test

\`\`\`sh
app build ${dir}      # compile, check the manifest as an upload does, write build/${name}-0.1.0.wasm
app test ${dir}       # the conformance check through the real host
npx vitest run --root ${dir}   # the tests in test/, from the platform repository
\`\`\`

## Publish and try it

With the platform running (\`npm start\` in the repository) and a token of your tenant:

\`\`\`sh
export TOKEN=$(npx platform token --tenant demo --role admin)
app publish ${dir}/build/${name}-0.1.0.wasm   # upload and publish; prints the version id
\`\`\`

Then install that version and test-call it (\`docs/writing-apps.md\`, "From app new to a test call").

\`app build\` prints the module's path and its sha256: the hash the platform stores an upload of it
under. The module is built with the platform repository's toolchain: \`@apps-platform/app-sdk\`
resolves to its \`packages/app-sdk\`, and \`test/app.test.ts\` imports the repository's tooling by a
relative path, so keep the directory where it was created (or fix the two import paths).

## Next steps

- Add an action: declare it in the manifest (input and output JSON Schemas), write a function
  \`(request: InvokeRequest) => Answer\` and register it with \`ACTIONS.on('name', fn)\`.
- Call a vendor: list its host in the manifest's \`hosts\`, declare the API key under \`secrets\`, and send
  \`HttpRequest.get(url).bearer(request.call.secret('API_KEY')).send()\`.
- An asynchronous action answers \`pending(externalId)\` and completes through \`handle_webhook\`; set
  \`handles.webhook\` to true and export it (see the worked example in the guide).
`;
}

export const GITIGNORE = 'build/\n';

// An app created inside the platform repository (not in its release catalogue, apps/) is not the
// repository's: ignoring all of it keeps `git status` of the platform clean.
export const GITIGNORE_IN_REPO = `# Created inside the platform repository, which does not keep it: git ignores this whole folder.
# To keep the app in a repository of its own, create it outside the clone.
*
`;

// The app's own vitest settings, plain data (no import: an app outside the repository has no
// node_modules). `--root <dir>` makes vitest take the config nearest to <dir>, so this one, not the
// platform repository's (its suite's include list and database setup) when the app lives inside it.
export const VITEST_CONFIG = `// vitest settings of this app: npx vitest run --root <this directory>, from the platform repository.
export default {
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
  },
};
`;
