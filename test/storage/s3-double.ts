// An S3-compatible object store for tests, standing in for the outside world: node:http on 127.0.0.1,
// path-style PUT, GET and HEAD of objects held in memory, S3's XML errors (NoSuchKey, NoSuchBucket,
// BadDigest). It does not verify SigV4 signatures, but records what every request carried so a test
// can see that it was signed with the configured access key id.
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StoredObject {
  bytes: Buffer;
  contentType: string | null;
  /** x-amz-checksum-sha256 as sent with the PUT (base64), if any. */
  checksumSha256: string | null;
}

export interface RecordedRequest {
  method: string;
  bucket: string;
  key: string;
  headers: http.IncomingHttpHeaders;
  /** The signing scheme of the Authorization header (AWS4-HMAC-SHA256), null without one. */
  scheme: string | null;
  /** The access key id named in the Authorization header's Credential, null without one. */
  accessKeyId: string | null;
  /** The region named in the credential scope. */
  region: string | null;
  status: number;
}

export interface S3Double {
  endpoint: string;
  /** bucket → key → object. */
  buckets: Map<string, Map<string, StoredObject>>;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const CREDENTIAL =
  /^(\S+) Credential=([^/]+)\/\d{8}\/([^/]+)\/s3\/aws4_request, SignedHeaders=[^,]+, Signature=[0-9a-f]{64}$/;

function xmlError(code: string, message: string, resource: string): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<Error><Code>${code}</Code><Message>${message}</Message><Resource>${resource}</Resource>`,
    `<RequestId>${randomUUID()}</RequestId></Error>`,
  ].join('');
}

/** Starts the double with the given (empty) buckets. */
export async function startS3Double(bucketNames: string[]): Promise<S3Double> {
  const buckets = new Map(bucketNames.map((name) => [name, new Map<string, StoredObject>()]));
  const requests: RecordedRequest[] = [];

  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://s3.test');
    const [, bucket = '', ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const authorization = request.headers.authorization ?? '';
    const credential = CREDENTIAL.exec(authorization);
    const record: RecordedRequest = {
      method: request.method ?? '',
      bucket,
      key,
      headers: request.headers,
      scheme: authorization ? (authorization.split(' ')[0] ?? null) : null,
      accessKeyId: credential?.[2] ?? null,
      region: credential?.[3] ?? null,
      status: 0,
    };
    requests.push(record);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);

    const answer = (status: number, headers: Record<string, string | number>, payload?: Buffer | string) => {
      record.status = status;
      response.writeHead(status, { 'x-amz-request-id': randomUUID(), ...headers });
      response.end(request.method === 'HEAD' ? undefined : payload);
    };
    const fail = (status: number, code: string, message: string) =>
      answer(status, { 'content-type': 'application/xml' }, xmlError(code, message, url.pathname));

    if (!record.scheme) return fail(403, 'AccessDenied', 'Access Denied');
    const objects = buckets.get(bucket);
    if (!objects) return fail(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (!key) return fail(501, 'NotImplemented', 'only object requests are implemented');

    if (request.method === 'PUT') {
      if (request.headers['content-encoding']?.includes('aws-chunked'))
        return fail(501, 'NotImplemented', 'aws-chunked uploads are not implemented');
      const sent = request.headers['x-amz-checksum-sha256'];
      const checksum = typeof sent === 'string' ? sent : null;
      if (checksum !== null && createHash('sha256').update(body).digest('base64') !== checksum)
        return fail(400, 'BadDigest', 'The SHA256 you specified did not match the calculated checksum.');
      objects.set(key, {
        bytes: body,
        contentType: request.headers['content-type'] ?? null,
        checksumSha256: checksum,
      });
      return answer(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
    }
    if (request.method === 'GET' || request.method === 'HEAD') {
      const object = objects.get(key);
      if (!object) return fail(404, 'NoSuchKey', 'The specified key does not exist.');
      return answer(
        200,
        {
          'content-type': object.contentType ?? 'binary/octet-stream',
          'content-length': object.bytes.byteLength,
          etag: `"${createHash('md5').update(object.bytes).digest('hex')}"`,
        },
        object.bytes,
      );
    }
    return fail(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    buckets,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}
