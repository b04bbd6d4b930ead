// The trusted roots a bundle is verified under (docs/provenance.md "Settings"): the files
// APP_TRANSPARENCY_TRUSTED_ROOTS lists, or the public-good root over TUF. Loaded when first needed (a
// deployment with APP_SIGNATURES off never reaches the network), kept, and refreshed hourly from TUF.
import fs from 'node:fs/promises';
import { TrustedRoot } from '@sigstore/protobuf-specs';

export interface RootSettings {
  /** Absolute paths of trusted-root JSON files; null: the public-good root over TUF. */
  trustedRoots: string[] | null;
  /** Where the TUF client keeps its metadata. */
  tufCache: string;
}

/** A trusted root could not be loaded (503 provenance_unavailable). */
export class RootsUnavailable extends Error {}

const TUF_REFRESH_MS = 60 * 60 * 1000;

export type RootLoader = () => Promise<TrustedRoot[]>;

/** A loader that reads once (files) or once an hour (TUF); a failed load is tried again next time. */
export function rootLoader(settings: RootSettings, now: () => number = Date.now): RootLoader {
  let cached: { roots: TrustedRoot[]; at: number } | null = null;
  return async () => {
    const fresh = cached && (settings.trustedRoots !== null || now() - cached.at < TUF_REFRESH_MS);
    if (cached && fresh) return cached.roots;
    try {
      const roots = settings.trustedRoots
        ? await Promise.all(settings.trustedRoots.map(readRoot))
        : [await publicGoodRoot(settings.tufCache)];
      cached = { roots, at: now() };
      return roots;
    } catch {
      throw new RootsUnavailable('a trusted root could not be loaded');
    }
  };
}

async function readRoot(file: string): Promise<TrustedRoot> {
  return TrustedRoot.fromJSON(JSON.parse(await fs.readFile(file, 'utf8')));
}

/** The public-good root over TUF; the client is imported only here, when first needed. */
async function publicGoodRoot(cachePath: string): Promise<TrustedRoot> {
  const { getTrustedRoot } = await import('@sigstore/tuf');
  return getTrustedRoot({ cachePath });
}
