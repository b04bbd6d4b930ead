// `platform console`: a link that signs one principal in to the console of the platform this clone runs.
// The token (made as `platform token` makes it) travels in the link's fragment: a browser never sends a
// fragment to a server, so it is in no request line and no log; the console keeps it in the tab's session
// storage and clears the fragment at once (console/src/auth/session.ts).
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { UsageError } from './usage.ts';

/** --page as given when it is a path of the console (`/`, `/runs/<id>`); else a UsageError. Pure. */
export function consolePage(page: string): string {
  if (!page.startsWith('/') || page.startsWith('//') || /[#\s]/.test(page)) {
    throw new UsageError('--page: a path of the console such as / or /runs/<id>');
  }
  return page;
}

/** `<api>/console<page>#token=<jwt>`: the page to land on, `/` for Home. Pure. */
export function consoleLink(apiUrl: string, token: string, page = '/'): string {
  return `${apiUrl}/console${consolePage(page)}#token=${token}`;
}

/** The desktop's opener (xdg-open) on PATH, or null where there is none (a server, a container). */
export function browserOpener(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, 'xdg-open');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return null;
}

/** Opens `url` in the default browser, detached; false when this machine has no opener. */
export function openInBrowser(url: string, opener = browserOpener()): boolean {
  if (!opener) return false;
  const child = spawn(opener, [url], { detached: true, stdio: 'ignore' });
  child.on('error', () => {});
  child.unref();
  return true;
}
