import { randomInt } from 'node:crypto';
import type { Clock } from '../../lib/clock';
import { sha256Hex } from '../../lib/crypto';
import type { AccountRepository, UserRow } from '../repository';

/** Codes a user gets at once; each signs in once. */
export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const LENGTH = 10;

/** As typed: any case, with or without the dash and spaces. */
const normalized = (code: string) => code.toLowerCase().replace(/[\s-]+/g, '');

/** Whether `code` is shaped like a recovery code (a two-factor code is six digits). */
export const looksLikeRecoveryCode = (code: string): boolean =>
  new RegExp(`^[${ALPHABET}]{${LENGTH}}$`).test(normalized(code));

/**
 * Recovery codes, for a user who lost their phone: ten codes of 50 random bits each, shown once as `abcde-fgh23`
 * and stored as their sha256 (random enough that a fast hash is safe, as for API tokens). One takes the place of a
 * two-factor code once, wherever a code is asked for. A new set replaces the old one.
 */
export class RecoveryCodes {
  constructor(
    private readonly repo: AccountRepository,
    private readonly clock: Clock,
  ) {}

  async issue(user: UserRow): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
      const chars = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
      return `${chars.slice(0, LENGTH / 2)}-${chars.slice(LENGTH / 2)}`;
    });
    const hashes = codes.map((c) => sha256Hex(normalized(c)));
    await this.repo.replaceRecoveryCodes(user.id, hashes, this.clock.now().toISOString());
    return codes;
  }

  consume(user: UserRow, code: string): Promise<boolean> {
    return this.repo.consumeRecoveryCode(user.id, sha256Hex(normalized(code)));
  }

  left(user: UserRow): Promise<number> {
    return this.repo.recoveryCodesLeft(user.id);
  }

  clear(user: UserRow): Promise<void> {
    return this.repo.replaceRecoveryCodes(user.id, [], this.clock.now().toISOString());
  }
}
