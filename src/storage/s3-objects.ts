// Objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …) under `<prefix><key>`. Every upload
// carries its SHA-256 (x-amz-checksum-sha256) so the store refuses bytes damaged on the way. Errors name
// the operation, key, bucket and endpoint, never the credentials.
import { createHash } from 'node:crypto';
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import type { StorageSettings } from '../config.ts';
import type { ObjectStore } from './objects.ts';

export type S3StorageSettings = Extract<StorageSettings, { kind: 's3' }>;

export class S3Objects implements ObjectStore {
  private readonly client: S3Client;

  /**
   * `prefix` is prepended to every key (empty, or ends with `/`); `label` starts every error message
   * (`module storage`, `document storage`).
   */
  constructor(
    private readonly settings: S3StorageSettings,
    private readonly prefix: string,
    private readonly label: string,
  ) {
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
      // CRC32 trailers (aws-chunked uploads); the SHA-256 given on put covers the way in, and readers
      // hash what they get against the hash they keep.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: 10_000, socketTimeout: 60_000 },
    });
  }

  /** The object key in the bucket. */
  keyOf(key: string): string {
    return `${this.prefix}${key}`;
  }

  where(key: string): string {
    return `object ${this.keyOf(key)} in bucket ${this.settings.bucket}`;
  }

  async put(key: string, bytes: Uint8Array, options: { contentType?: string } = {}): Promise<void> {
    const objectKey = this.keyOf(key);
    try {
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.settings.bucket,
          Key: objectKey,
          Body: bytes,
          ContentLength: bytes.byteLength,
          ...(options.contentType ? { ContentType: options.contentType } : {}),
          ChecksumSHA256: createHash('sha256').update(bytes).digest('base64'),
        }),
      );
    } catch (error) {
      throw this.failure('PutObject', objectKey, error);
    }
  }

  async get(key: string): Promise<Uint8Array | null> {
    const objectKey = this.keyOf(key);
    try {
      const object = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }),
      );
      if (!object.Body) throw new Error('the answer has no body');
      return await object.Body.transformToByteArray();
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw this.failure('GetObject', objectKey, error);
    }
  }

  /** The stored object's size, or null when there is none. */
  async size(key: string): Promise<number | null> {
    const objectKey = this.keyOf(key);
    try {
      const head = await this.client.send(
        new HeadObjectCommand({ Bucket: this.settings.bucket, Key: objectKey }),
      );
      return head.ContentLength ?? null;
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw this.failure('HeadObject', objectKey, error);
    }
  }

  /** Closes the client's connections. */
  close(): void {
    this.client.destroy();
  }

  private failure(operation: string, objectKey: string, error: unknown): Error {
    const reason =
      error instanceof S3ServiceException
        ? `${error.name} (HTTP ${error.$metadata.httpStatusCode ?? '?'}): ${error.message}`
        : error instanceof Error
          ? `${error.name}: ${error.message}`
          : String(error);
    return new Error(
      `${this.label}: ${operation} ${objectKey} in bucket ${this.settings.bucket} at ${this.settings.endpoint} failed: ${reason}`,
      { cause: error },
    );
  }
}

/**
 * NoSuchKey, or a 404 that names no other cause (HEAD answers carry no body, and some stores send
 * bare 404s). A missing bucket is a misconfiguration, never an absent object.
 */
function isMissingObject(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  if (error.name === 'NoSuchKey') return true;
  return error.$metadata.httpStatusCode === 404 && error.name !== 'NoSuchBucket';
}
