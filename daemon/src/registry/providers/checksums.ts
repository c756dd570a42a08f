import { isDigestAlgorithm, type DigestAlgorithm } from '../../blobs/blob-store';
import { DIGEST_ALGORITHMS, DIGEST_HEX_LENGTH } from '../../contract/checksums';
import { ValidationError } from '../../lib/errors';
import type { ProviderRow } from '../repository';

/**
 * The registry's checksum rules, in and out: which declared checksums are accepted, and which
 * checksum a provider shows. The list of types is the blob store's (it computes them).
 */

export interface Checksum {
  checksum: string;
  checksum_type: DigestAlgorithm;
}

/**
 * A declared checksum and its type, checked together: the type names an algorithm and the hex
 * digest has its length. No checksum means none at all (a lone type is dropped: clients send
 * `checksum_type` with an empty checksum).
 */
export function normalizeChecksum(
  checksum: string | null,
  type: string | null,
): { checksum: string | null; checksum_type: DigestAlgorithm | null } {
  if (!checksum) return { checksum: null, checksum_type: null };
  const t = type?.toLowerCase();
  if (!t || !isDigestAlgorithm(t)) {
    throw new ValidationError(`checksum_type must be one of ${DIGEST_ALGORITHMS.join(', ')} when a checksum is given.`);
  }
  const want = DIGEST_HEX_LENGTH[t];
  if (!new RegExp(`^[0-9a-fA-F]{${want}}$`).test(checksum)) {
    throw new ValidationError(`checksum must be ${want} hexadecimal characters for checksum_type ${t}.`);
  }
  return { checksum: checksum.toLowerCase(), checksum_type: t };
}

/**
 * The checksum a provider shows, the same in the catalog vagrant verifies and in the API: a hosted
 * file that is stored here shows the sha256 the daemon computed from its bytes (a provider update
 * may change the declared one later without looking at the file); otherwise the declared checksum,
 * or none. ../shared/CLIENTS.md: "always advertise the sha256 the server computed".
 */
export function advertisedChecksum(
  p: Pick<ProviderRow, 'url' | 'blob_sha256' | 'checksum' | 'checksum_type'>,
): Checksum | undefined {
  if (!p.url && p.blob_sha256) return { checksum: p.blob_sha256, checksum_type: 'sha256' };
  if (p.checksum && p.checksum_type) return { checksum: p.checksum, checksum_type: p.checksum_type };
  return undefined;
}
