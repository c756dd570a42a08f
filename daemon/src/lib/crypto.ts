import { createHash, hash, scrypt as scryptCb, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number) => Promise<Buffer>;

/** One-shot `crypto.hash` (Node ≥ 20.12): every authenticated request hashes its token, and a Hash object cost twice as much. */
export const sha256Hex = (value: string): string => hash('sha256', value, 'hex');

/**
 * Constant-time comparison of two hex or text values of any length. Values of one length (a
 * presented token's hash against the stored one, on every request) are compared as they are,
 * without the two extra hashes; values of different lengths, which timingSafeEqual refuses, are
 * compared through their hashes (whether the lengths match is no secret: hashes and checksums
 * have their algorithm's length).
 */
export function safeEqual(a: string, b: string): boolean {
  const [ba, bb] = [Buffer.from(a), Buffer.from(b)];
  if (ba.length === bb.length) return timingSafeEqual(ba, bb);
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

/** `scrypt$<salt hex>$<hash hex>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString('hex')}$${hash.toString('hex')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, saltHex, hashHex] = stored.split('$');
  if (kind !== 'scrypt' || !saltHex || !hashHex) return false;
  const hash = await scrypt(password, Buffer.from(saltHex, 'hex'), 32);
  return timingSafeEqual(hash, Buffer.from(hashHex, 'hex'));
}
