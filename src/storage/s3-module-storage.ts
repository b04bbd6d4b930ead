// Module bytes in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …), under `<prefix><sha256>.wasm`.
// Uploads carry their SHA-256 (x-amz-checksum-sha256) so the store refuses bytes damaged on the way;
// downloads are hashed again here, so a damaged or substituted object is never served.
import { createHash } from 'node:crypto';
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { StorageSettings } from '../config.ts';
import type { ModuleStorage } from './module-storage.ts';

export type S3StorageSettings = Extract<StorageSettings, { kind: 's3' }>;

const SHA256 = /^[0-9a-f]{64}$/;

export class S3ModuleStorage implements ModuleStorage {
  private readonly client: S3Client;

  constructor(private readonly settings: S3StorageSettings) {
    this.client = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      // Neither given: the SDK's default chain (AWS_* variables, shared files, container or instance roles).
      credentials:
        settings.accessKeyId && settings.secretAccessKey
          ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
          : undefined,
      // Checksums only where this class asks for them: S3 look-alikes often refuse the SDK's default
      // CRC32 trailers (aws-chunked uploads); the SHA-256 given on put and the hash checked on get cover it.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 10_000, socketTimeout: 60_000 },
    });
  }

  /** The object key of a module. */
  key(sha256: string): string {
    return `${this.settings.prefix}${sha256}.wasm`;
  }

  async put(bytes: Uint8Array): Promise<string> {
    const digest = createHash('sha256').update(bytes).digest();
    const sha256 = digest.toString('hex');
    const key = this.key(sha256);
    // Content-addressed: an object already there under this key holds these bytes (the store checked
    // their checksum when they were written), so a second put sends nothing.
    if ((await this.size(key)) === bytes.byteLength) return sha256;
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: key,
          Body: bytes,
          ContentLength: bytes.byteLength,
          ContentType: 'application/wasm',
          ChecksumSHA256: digest.toString('base64'),
        }),
      );
    } catch (error) {
      throw this.failure('PutObject', key, error);
    }
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    if (!SHA256.test(sha256)) return null;
    const key = this.key(sha256);
    let bytes: Uint8Array;
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      if (!object.Body) throw new Error('the answer has no body');
      bytes = await object.Body.transformToByteArray();
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw this.failure('GetObject', key, error);
    }
    if (createHash('sha256').update(bytes).digest('hex') !== sha256) {
      throw new Error(
        `module storage: object ${key} in bucket ${this.settings.bucket} does not match its hash`,
      );
    }
    return bytes;
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }

  /** The stored object's size, or null when there is none. */
  private async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return head.ContentLength ?? null;
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw this.failure('HeadObject', key, error);
    }
  }

  private failure(operation: string, key: string, error: unknown): Error {
    const reason =
      error instanceof S3ServiceException
        ? `${error.name} (HTTP ${error.$metadata.httpStatusCode ?? '?'}): ${error.message}`
        : error instanceof Error
          ? `${error.name}: ${error.message}`
          : String(error);
    return new Error(
      `module storage: ${operation} ${key} in bucket ${this.settings.bucket} at ${this.settings.endpoint} failed: ${reason}`,
      { cause: error },
    );
  }
}

/**
 * NoSuchKey, or a 404 that names no other cause (HEAD answers carry no body, and some stores send
 * bare 404s). A missing bucket is a misconfiguration, never an absent module.
 */
function isMissingObject(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  if (error.name === 'NoSuchKey') return true;
  return error.$metadata.httpStatusCode === 404 && error.name !== 'NoSuchBucket';
}
