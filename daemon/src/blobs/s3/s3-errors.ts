import type { S3Location } from './location';

/**
 * An S3 request that failed for a reason of the store's (network, credentials, a missing bucket,
 * a server error). Its message names the operation, the bucket and the endpoint, and what to
 * check; never a credential (the SDK's error is not kept as a cause: its request would be logged).
 * Not an AppError: the daemon answers 500 with a request id and logs this message once.
 */
export class ObjectStoreError extends Error {
  /** The S3 error code or Node's (`AccessDenied`, `NoSuchBucket`, `ECONNREFUSED`). */
  readonly code: string;
  readonly status?: number;

  constructor(message: string, code: string, status?: number) {
    super(message);
    this.name = 'ObjectStoreError';
    this.code = code;
    if (status !== undefined) this.status = status;
  }
}

interface SdkError {
  name?: string;
  code?: string;
  message?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

const sdk = (err: unknown): SdkError =>
  (typeof err === 'object' && err !== null ? err : { message: String(err) }) as SdkError;

/** The S3 (or Node) error code of a failed request. */
export function s3ErrorCode(err: unknown): string {
  const e = sdk(err);
  return e.Code ?? e.code ?? e.name ?? 'Error';
}

const statusOf = (err: unknown): number | undefined => sdk(err).$metadata?.httpStatusCode;

/** A HeadObject or GetObject of a key that does not exist. */
export function isMissing(err: unknown): boolean {
  const code = s3ErrorCode(err);
  return code === 'NotFound' || code === 'NoSuchKey' || (statusOf(err) === 404 && code !== 'NoSuchBucket');
}

/** The server does not know the call (s3rver 3.7.1 has no ListMultipartUploads nor AbortMultipartUpload). */
export function isUnsupported(err: unknown): boolean {
  const code = s3ErrorCode(err);
  return code === 'NotImplemented' || code === 'MethodNotAllowed';
}

const CREDENTIALS = new Set([
  'AccessDenied',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'CredentialsProviderError',
  'ExpiredToken',
  'InvalidToken',
  'AuthorizationHeaderMalformed',
]);
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'TimeoutError',
  'RequestTimeout',
]);

function hint(code: string, status: number | undefined): string {
  // A refused HEAD has no body, so no code: its status says it.
  if (CREDENTIALS.has(code) || status === 401 || status === 403)
    return 'Check the credentials the daemon finds (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or an instance role) and that they may read and write the bucket.';
  if (code === 'NoSuchBucket') return 'Create the bucket, or fix its name in --blobs (BOXYARD_BLOBS).';
  if (NETWORK.has(code))
    return 'Check that the endpoint in --blobs (BOXYARD_BLOBS) is right and reachable from the daemon.';
  return 'The object store answered an error; see its logs.';
}

/** Where a location's requests go, as a message shows it. */
export const endpointName = (loc: S3Location): string => loc.endpoint ?? `AWS S3 (${loc.region})`;

/** The error a failed S3 request becomes: `op` is the S3 call, `key` the object it was about. */
export function storeFailure(loc: S3Location, op: string, key: string | undefined, err: unknown): ObjectStoreError {
  if (err instanceof ObjectStoreError) return err;
  const code = s3ErrorCode(err);
  const status = statusOf(err);
  const what = key === undefined ? `bucket "${loc.bucket}"` : `"${key}" in bucket "${loc.bucket}"`;
  const detail = sdk(err).message || code;
  return new ObjectStoreError(
    `S3 ${op} of ${what} at ${endpointName(loc)} failed: ${code}${status ? ` (HTTP ${status})` : ''}: ${detail}. ${hint(code, status)}`,
    code,
    status,
  );
}

/** What a read of a missing blob fails with: ENOENT, as the file store's (download and export code knows it). */
export function missingBlob(key: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOENT: no such blob, ${key}`), { code: 'ENOENT', path: key });
}
