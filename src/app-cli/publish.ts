// `app publish <module>`: the step from a built module to a running platform. Uploads the module
// (POST /apps/uploads, Content-Type application/wasm) and publishes the version it became (POST
// /apps/:name/versions/:id/publish) against the api with a tenant's token (TOKEN or --token), then says
// what happened: published, awaiting the tenant's approval, or under the operator's review. With --bundle
// it attaches a Sigstore bundle to the uploaded version first (PUT /apps/:name/versions/:id/provenance),
// so a deployment requiring signatures publishes it (docs/provenance.md). The api is found as every
// command finds it (src/cli/api-url.ts: --api-url, API_URL, the platform running from DATA_DIR, PORT).
import fs from 'node:fs/promises';
import type { Command } from 'commander';
import { API_URL_HELP, type ApiUrl, fetchApi, findApiUrl } from '../cli/api-url.ts';
import { APP_COMMANDS } from './commands.ts';
import { AppUsageError } from './errors.ts';

interface Version {
  id: string;
  name: string;
  version: string;
  sha256: string;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** The failure of a step (exit 1), printed as one line: the platform's status, code and message. */
export class PublishError extends Error {}

/** One line for an error answer: `<status> <code>: <message>` and the paths at fault, if any. */
export function describeRefusal(answer: Answer): string {
  const error = answer.body.error as
    | { code?: string; message?: string; details?: { issues?: { path?: string; message?: string }[] } }
    | undefined;
  if (!error) return `${answer.status}`;
  const issues = (error.details?.issues ?? []).map((issue) => `${issue.path}: ${issue.message}`);
  return [`${answer.status} ${error.code}: ${error.message}`, ...issues].join('; ');
}

/** What the author does about an upload refusal, when the refusal says: a version the tenant already has. */
export function remedyOf(answer: Answer): string[] {
  const error = answer.body.error as { code?: string; details?: { version?: unknown } } | undefined;
  const version = error?.details?.version;
  if (answer.status !== 409 || error?.code !== 'conflict' || typeof version !== 'string') return [];
  return [`raise "version" in the app's manifest (now ${version}) and build again`];
}

async function call(api: ApiUrl, route: string, init: RequestInit): Promise<Answer> {
  const response = await fetchApi(api, route, init);
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** What a publish answer means for the author, in words. */
export function outcomeOf(answer: Answer, version: Version): string {
  const at = `/apps/${version.name}/versions/${version.id}`;
  if (answer.status === 200) return 'published: installs of this tenant may use it now';
  const approval = answer.body.approval as { id: string } | undefined;
  if (answer.status === 202 && approval) {
    return `awaiting approval ${approval.id}: another holder of apps:publish approves it (POST ${at}/approve)`;
  }
  const review = answer.body.review as { id: string } | undefined;
  if (answer.status === 202 && review) return `under the operator's review ${review.id}`;
  throw new PublishError(`publish of version ${version.id} refused: ${describeRefusal(answer)}`);
}

export interface PublishResult {
  version: Version;
  outcome: string;
}

async function readInput(file: string, what: string): Promise<Buffer> {
  try {
    return await fs.readFile(file);
  } catch {
    throw new AppUsageError(`${file} is not a readable file (give ${what})`);
  }
}

/**
 * Uploads, attaches the bundle when one is given, and publishes; throws PublishError naming the step and
 * the platform's answer.
 */
export async function publishModule(
  file: string,
  api: ApiUrl,
  token: string,
  bundleFile?: string,
): Promise<PublishResult> {
  const bytes = await readInput(file, 'the module app build wrote');
  const bundle = bundleFile === undefined ? null : await readInput(bundleFile, 'a Sigstore bundle');
  const headers = { authorization: `Bearer ${token}` };
  const upload = await call(api, '/apps/uploads', {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/wasm' },
    body: bytes,
  });
  if (upload.status !== 201) {
    throw new PublishError(`upload refused: ${[describeRefusal(upload), ...remedyOf(upload)].join('; ')}`);
  }
  const version = upload.body as unknown as Version;
  if (bundle) {
    const attached = await call(api, `/apps/${version.name}/versions/${version.id}/provenance`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'application/json' },
      body: bundle,
    });
    if (attached.status !== 200)
      throw new PublishError(`provenance of version ${version.id} refused: ${describeRefusal(attached)}`);
  }
  const publish = await call(api, `/apps/${version.name}/versions/${version.id}/publish`, {
    method: 'POST',
    headers,
  });
  return { version, outcome: outcomeOf(publish, version) };
}

export function registerPublish(program: Command): void {
  program
    .command('publish')
    .description(APP_COMMANDS.publish)
    .argument('<module>', 'the module app build wrote (<dir>/build/<name>-<version>.wasm)')
    .option('--token <token>', 'a token of the tenant with apps:publish (default: $TOKEN)')
    .option('--api-url <url>', API_URL_HELP)
    .option(
      '--bundle <file>',
      'a Sigstore bundle of the module (cosign sign-blob --bundle …), attached before the publish',
    )
    .action(async (file: string, options: { token?: string; apiUrl?: string; bundle?: string }) => {
      const token = options.token ?? process.env.TOKEN;
      if (!token) {
        throw new AppUsageError(
          'no token: set TOKEN or give --token (npx platform token --tenant <name> --role admin prints one)',
        );
      }
      const { loadConfig } = await import('../config.ts');
      const api = await findApiUrl(options.apiUrl, loadConfig());
      // A refusal is thrown: the command prints `app: <step> refused: …` and exits 1.
      const { version, outcome } = await publishModule(file, api, token, options.bundle);
      process.stdout.write(
        `uploaded ${version.name} ${version.version} as version ${version.id}\n${outcome}\n`,
      );
    });
}
