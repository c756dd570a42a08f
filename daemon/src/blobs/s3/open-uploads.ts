import { AbortMultipartUploadCommand, ListMultipartUploadsCommand, type MultipartUpload } from '@aws-sdk/client-s3';
import type { Bucket } from './bucket';
import { storeFailure } from './s3-errors';

/** Every open multipart upload whose key starts with `prefix`, all pages. */
export async function openUploads(b: Bucket, prefix: string): Promise<MultipartUpload[]> {
  const found: MultipartUpload[] = [];
  let markers: { KeyMarker?: string; UploadIdMarker?: string } = {};
  for (;;) {
    const page = await b.call('ListMultipartUploads', prefix, () =>
      b.client.send(
        new ListMultipartUploadsCommand({
          Bucket: b.loc.bucket,
          Prefix: prefix,
          ...markers,
        }),
      ),
    );
    found.push(...(page.Uploads ?? []));
    if (!page.IsTruncated) return found;
    markers = { KeyMarker: page.NextKeyMarker, UploadIdMarker: page.NextUploadIdMarker };
  }
}

/** True when aborted; false when it was gone already (another daemon's sweeper, its own completion). */
export async function abortUpload(b: Bucket, u: MultipartUpload): Promise<boolean> {
  try {
    await b.client.send(new AbortMultipartUploadCommand({ Bucket: b.loc.bucket, Key: u.Key, UploadId: u.UploadId }));
    return true;
  } catch (err) {
    if ((err as { name?: string }).name === 'NoSuchUpload') return false;
    throw storeFailure(b.loc, 'AbortMultipartUpload', u.Key, err);
  }
}
