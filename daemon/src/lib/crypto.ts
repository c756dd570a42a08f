import { createHash, hash, scrypt as scryptCb, randomBytes, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * One-shot `crypto.hash` (Node ≥ 20.12): every authenticated request hashes its token, and a Hash object cost twice as
 * much.
 */
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

/** scrypt cost: N = 2^ln, block size r, parallelism p. */
export interface ScryptParams {
  ln: number;
  r: number;
  p: number;
}

/**
 * OWASP Password Storage Cheat Sheet (scrypt): N=2^14, r=8, p=5 is one of its equivalent
 * settings, the one with the least memory (16 MiB a hash) among those that keep time up: the
 * daemon's resident memory stays under 150 MiB while passwords are checked.
 */
export const PASSWORD_PARAMS: Readonly<ScryptParams> = Object.freeze({ ln: 14, r: 8, p: 5 });
/** Hashes written before the PHC format (`scrypt$salt$hash`): Node's defaults. */
const LEGACY_PARAMS: Readonly<ScryptParams> = Object.freeze({ ln: 14, r: 8, p: 1 });
const KEY_LENGTH = 32;
const MAX_MEMORY = 64 * 1024 * 1024;
const memoryOf = ({ ln, r }: ScryptParams) => 128 * 2 ** ln * r;

export type DeriveKey = (password: string, salt: Buffer, params: ScryptParams) => Promise<Buffer>;

/** scrypt itself (node:crypto, on libuv's thread pool). */
export const scrypt: DeriveKey = (password, salt, { ln, r, p }) =>
  new Promise((resolve, reject) => {
    const opts: ScryptOptions = { N: 2 ** ln, r, p, maxmem: memoryOf({ ln, r, p }) + 8 * 1024 * 1024 };
    scryptCb(password, salt, KEY_LENGTH, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });

const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');

interface Parsed {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

/**
 * `$scrypt$ln=14,r=8,p=5$<salt>$<hash>` (PHC string format, base64 without padding) or the legacy `scrypt$<salt
 * hex>$<hash hex>`.
 */
function parse(stored: string): Parsed | undefined {
  const phc = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(stored);
  if (phc) {
    const params = { ln: Number(phc[1]), r: Number(phc[2]), p: Number(phc[3]) };
    // A damaged row must not make one login cost gigabytes.
    if (params.ln < 1 || params.r < 1 || params.p < 1 || params.p > 16 || memoryOf(params) > MAX_MEMORY)
      return undefined;
    return { params, salt: Buffer.from(phc[4], 'base64'), hash: Buffer.from(phc[5], 'base64') };
  }
  const legacy = /^scrypt\$([0-9a-f]+)\$([0-9a-f]{64})$/.exec(stored);
  if (legacy)
    return { params: LEGACY_PARAMS, salt: Buffer.from(legacy[1], 'hex'), hash: Buffer.from(legacy[2], 'hex') };
  return undefined;
}

const sameParams = (a: ScryptParams, b: ScryptParams) => a.ln === b.ln && a.r === b.r && a.p === b.p;

export interface PasswordCheck {
  ok: boolean;
  /** The hash was made with other parameters: store a new one (the password is known now). */
  rehash: boolean;
}

/**
 * Password hashing. Every check derives one key with the current parameters or the stored ones,
 * including checks against no hash (an unknown login), so that answers take the same time either
 * way. At most `concurrency` derivations run at once: each holds 16 MiB and a thread of libuv's
 * pool, which file reads and writes of uploads and downloads share.
 */
export class PasswordHasher {
  private readonly params: ScryptParams;
  private readonly derive: DeriveKey;
  private readonly limit: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(opts: { params?: ScryptParams; derive?: DeriveKey; concurrency?: number } = {}) {
    this.params = opts.params ?? PASSWORD_PARAMS;
    this.derive = opts.derive ?? scrypt;
    this.limit = opts.concurrency ?? 2;
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await this.run(password, salt, this.params);
    const { ln, r, p } = this.params;
    return `$scrypt$ln=${ln},r=${r},p=${p}$${b64(salt)}$${b64(key)}`;
  }

  /** Checks a password against a stored hash; with no (or an unreadable) hash, does the same work and answers false. */
  async verify(password: string, stored: string | undefined): Promise<PasswordCheck> {
    const parsed = stored === undefined ? undefined : parse(stored);
    if (!parsed) {
      await this.run(password, randomBytes(16), this.params);
      return { ok: false, rehash: false };
    }
    const key = await this.run(password, parsed.salt, parsed.params);
    const ok = key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
    return { ok, rehash: ok && !sameParams(parsed.params, this.params) };
  }

  private async run(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await this.derive(password, salt, params);
    } finally {
      // Hand the slot to the next waiter directly, so a newcomer cannot overtake it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
