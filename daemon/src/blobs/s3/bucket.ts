import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { checkedSha, checkedUploadId } from '../blob-store';
import type { S3Location } from './location';
import { storeFailure } from './s3-errors';

/**
 * Key layout under the prefix (the file store's, docs/ARCHITECTURE.md):
 *
 *   PREFIX/blobs/sha256/ab/abcdef0123…   one object per distinct content, named by its sha256,
 *                                         written only by a copy of a verified staging object.
 *   PREFIX/uploads/<upload-id>            an upload's staging object: complete once it exists (a
 *                                         multipart upload shows nothing until it is completed).
 *
 * A multipart upload that was never completed nor aborted (a crash) holds parts under the
 * staging key; the sweeper aborts it.
 */
export const blobKey = (loc: S3Location, sha256: string): string =>
  `${loc.prefix}blobs/sha256/${checkedSha(sha256).slice(0, 2)}/${sha256}`;
export const stagingKey = (loc: S3Location, uploadId: string): string =>
  `${loc.prefix}uploads/${checkedUploadId(uploadId)}`;
export const blobsPrefix = (loc: S3Location): string => `${loc.prefix}blobs/sha256/`;
export const stagingPrefix = (loc: S3Location): string => `${loc.prefix}uploads/`;

/** The `x-amz-copy-source` of a key: bucket/key, each segment percent-encoded. */
export const copySource = (loc: S3Location, key: string): string =>
  `${loc.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;

/** A client and the location it serves: what the store's parts share. */
export interface Bucket {
  client: S3Client;
  loc: S3Location;
  /** Runs an S3 request; a failure becomes an ObjectStoreError naming `op`, the key, the bucket and the endpoint. */
  call<T>(op: string, key: string | undefined, request: () => Promise<T>): Promise<T>;
}

export function bucketOf(client: S3Client, loc: S3Location): Bucket {
  return {
    client,
    loc,
    async call(op, key, request) {
      try {
        return await request();
      } catch (err) {
        throw storeFailure(loc, op, key, err);
      }
    },
  };
}

/**
 * A client for the location. Credentials: the SDK's default chain (AWS_ACCESS_KEY_ID…, a profile,
 * an instance role) unless `extra` gives them (tests).
 */
export function s3ClientFor(loc: S3Location, extra: Partial<S3ClientConfig> = {}): S3Client {
  // The SDK prints a page on stderr at the first client under Node 20: its releases from 2027
  // need Node 22. Boxyard pins the SDK in package-lock.json, so that is the project's to act on
  // (docs/deploy.md), not the operator's at every start. An operator's own setting wins.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return new S3Client({
    region: loc.region,
    ...(loc.endpoint ? { endpoint: loc.endpoint } : {}),
    forcePathStyle: loc.forcePathStyle,
    // SDK 3.729 and later add CRC32 checksums to every upload and check them on every download
    // by default; several S3-compatible servers (MinIO before 2025, Ceph RGW before Squid,
    // s3rver) refuse or mangle them. The store verifies its own sha256 anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // Each download that streams through the daemon holds a connection for its whole length:
    // the SDK's default of 50 sockets would queue the 51st download behind the others.
    requestHandler: {
      httpAgent: { keepAlive: true, maxSockets: 512 },
      httpsAgent: { keepAlive: true, maxSockets: 512 },
    },
    ...extra,
  });
}

/**
 * The client that signs download URLs: `client` itself, or, when the location has a public
 * endpoint, a second client for that endpoint with `client`'s own credential provider (so the
 * same keys, resolved once), region and path-style setting. It only signs: presigning sends no
 * request, so it never opens a connection.
 */
export function presignClientFor(client: S3Client, loc: S3Location): S3Client {
  if (!loc.publicEndpoint) return client;
  return s3ClientFor({ ...loc, endpoint: loc.publicEndpoint }, { credentials: client.config.credentials });
}
