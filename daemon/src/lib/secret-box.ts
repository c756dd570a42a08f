import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Sealed values start with this; the secrets sealed here (base32 TOTP secrets) never do. */
const PREFIX = 'v1.';

/**
 * Secrets kept in the database (TOTP secrets) sealed with AES-256-GCM under a key that lives
 * beside the data (`DATA/secret.key`), so a copy of the database alone does not give them away.
 * `context` is bound to each value (GCM's additional data): a sealed value moved to another
 * user's row does not open there.
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`A secret key is ${KEY_BYTES} bytes; got ${key.length}.`);
  }

  /**
   * The key in `file`, created (0600, 32 random bytes as hex) when missing. A key of ours that
   * others can read is made owner-only. A damaged key file is an error that says what to do, never replaced:
   * a new key could not open what the old one sealed.
   */
  static fromKeyFile(file: string): SecretBox {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, `${randomBytes(KEY_BYTES).toString('hex')}\n`);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    // A key mounted by a container runtime (another owner, read-only) is guarded by its mount.
    const st = statSync(file);
    const ours = process.getuid === undefined || st.uid === process.getuid();
    if (ours && (st.mode & 0o077) !== 0) {
      try {
        chmodSync(file, 0o600);
      } catch (err) {
        if (!['EROFS', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err;
      }
    }
    const text = readFileSync(file, 'utf8').trim();
    if (!/^[0-9a-f]{64}$/.test(text)) {
      throw new Error(
        `${file} is not a Boxyard secret key (64 hex digits). Restore it from a backup of the data folder; without it, two-factor secrets cannot be read.`,
      );
    }
    return new SecretBox(Buffer.from(text, 'hex'));
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${iv.toString('base64url')}.${body.toString('base64url')}`;
  }

  /** The plaintext, or undefined when the value was not sealed with this key and context (or was altered). */
  open(sealed: string, context: string): string | undefined {
    const m = /^v1\.([\w-]+)\.([\w-]+)$/.exec(sealed);
    if (!m) return undefined;
    const iv = Buffer.from(m[1], 'base64url');
    const body = Buffer.from(m[2], 'base64url');
    if (iv.length !== IV_BYTES || body.length < TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return undefined;
    }
  }
}
