// Local Sigstore services for tests (no network): a Fulcio CA with its CT log, a Rekor log and a
// timestamp authority from @sigstore/mock, served over real HTTP on loopback, with a trusted-root file
// naming them; bundles are built by @sigstore/sign's own builders and witnesses against them.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { bundleToJSON } from '@sigstore/bundle';
import {
  fulcioHandler,
  type HandlerFn,
  initializeCA,
  initializeCTLog,
  initializeTLog,
  initializeTSA,
  rekorHandler,
  tsaHandler,
} from '@sigstore/mock';
import {
  DSSEBundleBuilder,
  FulcioSigner,
  MessageSignatureBundleBuilder,
  RekorWitness,
  type Signer,
  TSAWitness,
  type Witness,
} from '@sigstore/sign';

export const TEST_ISSUER = 'https://issuer.test';

export interface KeylessIdentity {
  /** The certificate's subject alternative name (the token's sub). */
  identity: string;
  issuer?: string;
  /** A repository name: the certificate then names https://github.com/<repository> as its source. */
  repository?: string;
}

export interface SignOptions {
  /** An in-toto statement naming the module (DSSE), instead of a message signature over it. */
  attestation?: boolean;
  /** What proves the time: a Rekor entry (default), an RFC 3161 timestamp, both, or nothing. */
  witnesses?: ('rekor' | 'tsa')[];
}

export interface LocalSigstore {
  /** A trusted-root JSON file naming the local CA, CT log, Rekor and timestamp authority. */
  rootPath: string;
  /** A trusted-root file naming only the timestamp authority (no logs, no CA): key-signed bundles. */
  tsaOnlyRootPath: string;
  keyless(module: Uint8Array, who: KeylessIdentity, options?: SignOptions): Promise<Record<string, unknown>>;
  withKey(module: Uint8Array, key: P256Key, options?: SignOptions): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export interface P256Key {
  privateKey: crypto.KeyObject;
  publicKeyPem: string;
}

export function p256Key(): P256Key {
  const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const keyPair = () => crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const b64 = (bytes: ArrayBufferView | Buffer) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** Starts the services; build once per file (beforeAll) and close after. */
export async function startLocalSigstore(): Promise<LocalSigstore> {
  const ctlog = await initializeCTLog(keyPair());
  const ca = await initializeCA(keyPair(), ctlog);
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tlog = await initializeTLog(base, keyPair());
  const tsa = await initializeTSA(keyPair());
  const routes = new Map<string, HandlerFn>(
    [fulcioHandler(ca), rekorHandler(tlog), tsaHandler(tsa)].map((h) => [h.path, h.fn]),
  );
  server.on('request', (request, response) => serve(routes, request, response));

  const since = new Date(Date.now() - 3_600_000).toISOString();
  const tlogEntry = (key: Buffer, keyId: Buffer) => ({
    baseUrl: base,
    hashAlgorithm: 'SHA2_256',
    publicKey: { rawBytes: b64(key), keyDetails: 'PKIX_ECDSA_P256_SHA_256', validFor: { start: since } },
    logId: { keyId: b64(keyId) },
  });
  const tsaAuthority = {
    subject: { organization: 'local', commonName: 'tsa' },
    uri: base,
    certChain: {
      certificates: [{ rawBytes: b64(tsa.intCertificate) }, { rawBytes: b64(tsa.rootCertificate) }],
    },
    validFor: { start: since },
  };
  const root = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [tlogEntry(tlog.publicKey, crypto.createHash('sha256').update(tlog.publicKey).digest())],
    certificateAuthorities: [
      {
        subject: { organization: 'local', commonName: 'fulcio' },
        uri: base,
        certChain: { certificates: [{ rawBytes: b64(ca.rootCertificate) }] },
        validFor: { start: since },
      },
    ],
    ctlogs: [tlogEntry(ctlog.publicKey, Buffer.from(ctlog.logID.buffer))],
    timestampAuthorities: [tsaAuthority],
  };
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sigstore-'));
  const rootPath = path.join(dir, 'trusted-root.json');
  const tsaOnlyRootPath = path.join(dir, 'tsa-only-root.json');
  await fs.writeFile(rootPath, JSON.stringify(root));
  await fs.writeFile(
    tsaOnlyRootPath,
    JSON.stringify({ ...root, tlogs: [], ctlogs: [], certificateAuthorities: [] }),
  );

  const witnesses = (options: SignOptions): Witness[] =>
    (options.witnesses ?? ['rekor']).map((w) =>
      w === 'rekor'
        ? new RekorWitness({ rekorBaseURL: base, entryType: options.attestation ? 'intoto' : undefined })
        : new TSAWitness({ tsaBaseURL: base }),
    );
  const build = async (module: Uint8Array, signer: Signer, options: SignOptions) => {
    const builder = options.attestation
      ? new DSSEBundleBuilder({ signer, witnesses: witnesses(options) })
      : new MessageSignatureBundleBuilder({ signer, witnesses: witnesses(options) });
    const data = options.attestation ? statementFor(module) : Buffer.from(module);
    const bundle = await builder.create({ data, type: 'application/vnd.in-toto+json' });
    return bundleToJSON(bundle) as Record<string, unknown>;
  };
  return {
    rootPath,
    tsaOnlyRootPath,
    keyless: (module, who, options = {}) => build(module, fulcioSigner(base, who), options),
    withKey: (module, key, options = {}) => build(module, keySigner(key), options),
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

function serve(routes: Map<string, HandlerFn>, request: http.IncomingMessage, response: http.ServerResponse) {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', async () => {
    const handler = routes.get(request.url ?? '');
    if (!handler) {
      response.writeHead(404).end();
      return;
    }
    const result = await handler(Buffer.concat(chunks).toString('utf8'));
    response.writeHead(result.statusCode, { 'content-type': result.contentType ?? 'text/plain' });
    response.end(result.response);
  });
}

/** An unsigned OIDC token: the local Fulcio reads its claims without checking a signature. */
function token(who: KeylessIdentity): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = {
    iss: who.issuer ?? TEST_ISSUER,
    sub: who.identity,
    ...(who.repository ? { repository: who.repository } : {}),
  };
  return `${part({ alg: 'none' })}.${part(claims)}.`;
}

function fulcioSigner(base: string, who: KeylessIdentity): Signer {
  return new FulcioSigner({
    fulcioBaseURL: base,
    identityProvider: { getToken: async () => token(who) },
  });
}

function keySigner(key: P256Key): Signer {
  return {
    sign: async (data) => ({
      signature: crypto.sign('sha256', data, key.privateKey),
      key: { $case: 'publicKey', publicKey: key.publicKeyPem },
    }),
  };
}

/** An in-toto statement whose one subject is the module. */
export function statementFor(module: Uint8Array, sha256?: string): Buffer {
  const digest = sha256 ?? crypto.createHash('sha256').update(module).digest('hex');
  return Buffer.from(
    JSON.stringify({
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ name: 'module.wasm', digest: { sha256: digest } }],
      predicateType: 'https://slsa.dev/provenance/v1',
      predicate: {},
    }),
  );
}

/** A record as the api stores one for a keyless signer (setting up a version without signing). */
export function keylessRecord(identity: string, issuer = TEST_ISSUER) {
  return {
    kind: 'signature',
    signer: { kind: 'keyless', issuer, identity },
    source: null,
    transparencyLog: null,
    signedAt: '2026-11-26T10:00:00.000Z',
  };
}

/** A policy naming one keyless signer, as APP_TRUSTED_SIGNERS takes it. */
export const keylessPolicy = (name: string, identity: string, issuer = TEST_ISSUER) =>
  JSON.stringify([{ name, issuer, identity }]);
