import { ValidationError } from '../../lib/errors';

/** Where an S3 blob store keeps its objects: the `--blobs s3://BUCKET/PREFIX?endpoint=…&region=…` setting, parsed. */
export interface S3Location {
  bucket: string;
  /** Every key starts with it: empty, or ending in `/`. */
  prefix: string;
  /** An S3-compatible server (MinIO, Ceph, …); undefined: AWS S3 itself. */
  endpoint?: string;
  /**
   * Where clients reach the same store, when the daemons use an address they cannot (an internal
   * `http://minio:9000`): presigned download URLs are signed for it. Undefined: `endpoint`.
   */
  publicEndpoint?: string;
  region: string;
  /**
   * Bucket in the path (`http://host/bucket/key`): forced with an endpoint, as S3-compatible servers rarely have
   * per-bucket DNS names.
   */
  forcePathStyle: boolean;
}

const SETTING = 'the blobs setting (--blobs, BOXYARD_BLOBS)';
const EXAMPLE = 's3://BUCKET/PREFIX?endpoint=https://minio.example:9000&region=us-east-1';
/** S3's rule for bucket names (lower-case letters, digits, dots and hyphens; 3-63 characters). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const PARAMETERS = new Set(['endpoint', 'public_endpoint', 'region']);
const REGION = /^[a-z0-9-]{1,64}$/;

/**
 * The value as an error message may show it: whatever stands before an `@` after `//` (user and password) is left out.
 */
const redacted = (value: string): string => value.replace(/\/\/[^/?#&]*@/g, '//…@');

function invalid(value: string, why: string): ValidationError {
  return new ValidationError(`${SETTING} is ${JSON.stringify(redacted(value))}: ${why}. Expected ${EXAMPLE}.`, {
    field: 'blobs',
  });
}

/** `a//b/` → `a/b/`; empty stays empty. Refuses `.` and `..` segments, which S3 keeps but people never mean. */
function normalisedPrefix(value: string, path: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    throw invalid(value, 'the prefix is not valid percent-encoding');
  }
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '.' || s === '..'))
    throw invalid(value, 'the prefix may not contain "." or ".." segments');
  return segments.length ? `${segments.join('/')}/` : '';
}

/**
 * `endpoint` or `public_endpoint` (`name`, as messages call it): an http(s) URL without credentials, query or fragment.
 */
function endpointOf(value: string, raw: string | null, name: string): string | undefined {
  if (raw === null) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(value, `the ${name} ${JSON.stringify(redacted(raw))} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalid(value, `the ${name} must be an http:// or https:// URL`);
  if (url.username || url.password)
    throw invalid(
      value,
      `the ${name} may not carry credentials: give them as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY`,
    );
  if (url.search || url.hash)
    throw invalid(value, `the ${name} may not have a query or fragment (percent-encode it as one parameter)`);
  return url.href.replace(/\/+$/, '');
}

/** Parses the blobs setting; a value that is not a usable S3 location throws a ValidationError naming the setting. */
export function parseS3Location(value: string): S3Location {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(value, 'not a URL');
  }
  if (url.protocol !== 's3:') throw invalid(value, 'the scheme must be s3://');
  if (url.username || url.password)
    throw invalid(
      value,
      'credentials do not belong in the URL: give them as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    );
  if (url.port) throw invalid(value, 'a bucket has no port: give the server as ?endpoint=');
  if (url.hash) throw invalid(value, 'a fragment (#…) has no meaning here');
  const bucket = url.hostname;
  if (!BUCKET.test(bucket))
    throw invalid(
      value,
      `${JSON.stringify(bucket)} is not a valid bucket name (3-63 lower-case letters, digits, dots or hyphens)`,
    );
  for (const key of url.searchParams.keys()) {
    if (!PARAMETERS.has(key))
      throw invalid(value, `unknown parameter ${JSON.stringify(key)} (known: endpoint, public_endpoint, region)`);
  }
  const region = url.searchParams.get('region') ?? 'us-east-1';
  if (!REGION.test(region)) throw invalid(value, `${JSON.stringify(region)} is not a region name`);
  const endpoint = endpointOf(value, url.searchParams.get('endpoint'), 'endpoint');
  const publicEndpoint = endpointOf(value, url.searchParams.get('public_endpoint'), 'public_endpoint');
  // Path-style follows `endpoint` alone: the public address is the same store under another name.
  return {
    bucket,
    prefix: normalisedPrefix(value, url.pathname),
    endpoint,
    publicEndpoint,
    region,
    forcePathStyle: endpoint !== undefined,
  };
}
