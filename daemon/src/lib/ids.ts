import { randomBytes } from 'node:crypto';

/** Id and secret source injected into services (HCP Terraform style prefixed ids). */
export interface IdGen {
  /** A random id with the given prefix, e.g. `apool-3kT9…`. */
  id(prefix: string): string;
  /** A random URL-safe secret with enough entropy to be unguessable. */
  secret(bytes?: number): string;
}

const ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

export const randomIdGen = (): IdGen => ({
  id(prefix) {
    const bytes = randomBytes(16);
    let out = '';
    for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
    return prefix ? `${prefix}-${out}` : out;
  },
  secret(bytes = 32) {
    return randomBytes(bytes).toString('base64url');
  },
});
