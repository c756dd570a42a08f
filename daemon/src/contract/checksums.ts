/**
 * The one list of checksum types: the digest algorithms a provider may declare (Vagrant's
 * `checksum_type`, which node:crypto computes under the same names), with the length of each hex
 * digest. The registry checks declared checksums against it, the blob store computes them
 * (sha256 always), the web UI offers them. Pure: the renderer bundles it.
 */
export const DIGEST_HEX_LENGTH = { md5: 32, sha1: 40, sha256: 64, sha384: 96, sha512: 128 } as const;
export type DigestAlgorithm = keyof typeof DIGEST_HEX_LENGTH;
export const DIGEST_ALGORITHMS = Object.keys(DIGEST_HEX_LENGTH) as DigestAlgorithm[];
