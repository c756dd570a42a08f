import { randomInt } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import type { Clock } from '../../lib/clock';
import { sha256Hex } from '../../lib/crypto';
import { SecretBox } from '../../lib/secret-box';
import { ValidationError } from '../../lib/errors';
import type { AccountRepository, UserRow } from '../repository';
import type { SmsSender } from './sms-sender';
import { looksLikeRecoveryCode, RecoveryCodes } from './recovery-codes';
import type { DeliveryMethod } from '../../contract/wire/accounts';

const SMS_CODE_TTL_MS = 10 * 60 * 1000;
const PERIOD = 30;

const totpFor = (secret: string, label: string) =>
  new OTPAuth.TOTP({
    issuer: 'Boxyard',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD,
    secret: OTPAuth.Secret.fromBase32(secret),
  });

/** Shows a phone number as `*******1234`. */
export const obfuscate = (phone: string): string => phone.replace(/.(?=.{4})/g, '*');

/** The additional data a user's TOTP secrets are sealed with: a sealed secret opens only in its own row. */
const sealContext = (userId: string) => `boxyard two_factor.totp ${userId}`;

/**
 * TOTP (authenticator app) and SMS codes, and recovery codes in their place; every code works once. TOTP secrets are
 * stored sealed.
 */
export class TwoFactorService {
  private readonly recovery: RecoveryCodes;

  constructor(
    private readonly repo: AccountRepository,
    private readonly clock: Clock,
    private readonly sms: SmsSender,
    private readonly secrets: SecretBox,
  ) {
    this.recovery = new RecoveryCodes(repo, clock);
  }

  /**
   * At start: seals TOTP secrets stored in plaintext (databases made before secrets were sealed: migration 009).
   * Answers how many rows changed.
   */
  async sealStoredSecrets(): Promise<number> {
    let changed = 0;
    for (const row of await this.repo.twoFactorSecrets()) {
      const seal = (v: string | null) =>
        v === null || SecretBox.isSealed(v) ? v : this.secrets.seal(v, sealContext(row.user_id));
      const [secret, pending] = [seal(row.totp_secret), seal(row.totp_pending_secret)];
      if (secret === row.totp_secret && pending === row.totp_pending_secret) continue;
      await this.repo.saveTwoFactor({ user_id: row.user_id, totp_secret: secret, totp_pending_secret: pending });
      changed++;
    }
    return changed;
  }

  private open(user: UserRow, sealed: string | null): string | undefined {
    return sealed === null ? undefined : this.secrets.open(sealed, sealContext(user.id));
  }

  async methods(user: UserRow): Promise<DeliveryMethod[]> {
    const tf = await this.repo.twoFactor(user.id);
    const out: DeliveryMethod[] = [];
    if (tf?.totp_enabled) out.push('app');
    if (tf?.sms_enabled) out.push('sms');
    return out;
  }

  /**
   * Step 1 of TOTP: a new secret, kept aside until a code from it is confirmed. An authenticator
   * already set up keeps working meanwhile (and if the new one is never confirmed).
   */
  async beginTotp(user: UserRow): Promise<{ secret: string; otpauth_url: string }> {
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    await this.repo.saveTwoFactor({
      user_id: user.id,
      totp_pending_secret: this.secrets.seal(secret, sealContext(user.id)),
    });
    return { secret, otpauth_url: totpFor(secret, user.username).toString() };
  }

  /**
   * Step 2: a code from the new secret makes it the one in use (replacing any earlier one). Answers the recovery codes
   * when this switched two-factor on (none when another method was on already: those codes stay).
   */
  async confirmTotp(user: UserRow, code: string): Promise<string[] | null> {
    const wasOn = (await this.methods(user)).length > 0;
    const tf = await this.repo.twoFactor(user.id);
    const pending = this.open(user, tf?.totp_pending_secret ?? null);
    if (!tf || !pending)
      throw new ValidationError('Start authenticator setup first (POST /api/boxyard/two-factor/totp).');
    const step = this.totpStep(user, pending, code.replace(/\s+/g, ''));
    if (step === undefined)
      throw new ValidationError('The authenticator code is wrong. Type the code the app shows now.');
    await this.repo.saveTwoFactor({
      user_id: user.id,
      totp_secret: tf.totp_pending_secret,
      totp_pending_secret: null,
      totp_enabled: 1,
      // The confirming code is used: it does not sign in a second time.
      last_totp_step: Math.max(tf.last_totp_step, step),
    });
    return wasOn ? null : this.recovery.issue(user);
  }

  /** As confirmTotp: the recovery codes when this switched two-factor on. */
  async enableSms(user: UserRow, phone: string): Promise<string[] | null> {
    const wasOn = (await this.methods(user)).length > 0;
    await this.repo.saveTwoFactor({ user_id: user.id, sms_phone: phone, sms_enabled: 1 });
    return wasOn ? null : this.recovery.issue(user);
  }

  /** A new set of recovery codes in place of the old one; only while two-factor is on. */
  async newRecoveryCodes(user: UserRow): Promise<string[]> {
    if ((await this.methods(user)).length === 0)
      throw new ValidationError('Two-factor is off: recovery codes come with an authenticator app or SMS codes.');
    return this.recovery.issue(user);
  }

  recoveryCodesLeft(user: UserRow): Promise<number> {
    return this.recovery.left(user);
  }

  async disable(user: UserRow, method: DeliveryMethod): Promise<void> {
    if (method === 'app')
      await this.repo.saveTwoFactor({
        user_id: user.id,
        totp_enabled: 0,
        totp_secret: null,
        totp_pending_secret: null,
      });
    else await this.repo.saveTwoFactor({ user_id: user.id, sms_enabled: 0, sms_phone: null });
    // Recovery codes stand in for a method: with none left they would be a password's second factor of their own.
    if ((await this.methods(user)).length === 0) await this.recovery.clear(user);
  }

  /** Switches every method off (`boxyard user reset-two-factor`: a lost phone, or a lost secret.key). */
  async reset(user: UserRow): Promise<void> {
    await this.repo.saveTwoFactor({
      user_id: user.id,
      totp_enabled: 0,
      totp_secret: null,
      totp_pending_secret: null,
      sms_enabled: 0,
      sms_phone: null,
    });
    await this.recovery.clear(user);
  }

  /** Sends an SMS code and answers where it went. */
  async sendSms(user: UserRow): Promise<string> {
    const tf = await this.repo.twoFactor(user.id);
    if (!tf?.sms_enabled || !tf.sms_phone) throw new ValidationError('SMS two-factor is not enabled for this account.');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const expires = new Date(this.clock.now().getTime() + SMS_CODE_TTL_MS).toISOString();
    await this.repo.replaceSmsCode(user.id, sha256Hex(code), expires);
    await this.sms.send(tf.sms_phone, code);
    return obfuscate(tf.sms_phone);
  }

  /** True when the code is a current TOTP, an unexpired SMS code or a recovery code that was not used before. */
  async verify(user: UserRow, code: string): Promise<boolean> {
    const clean = code.replace(/\s+/g, '');
    if (looksLikeRecoveryCode(clean))
      return (await this.methods(user)).length > 0 && this.recovery.consume(user, clean);
    if (!/^\d{6}$/.test(clean)) return false;
    const tf = await this.repo.twoFactor(user.id);
    if (!tf) return false;
    if (tf.totp_enabled) {
      const secret = this.open(user, tf.totp_secret);
      const step = secret === undefined ? undefined : this.totpStep(user, secret, clean);
      if (step !== undefined && (await this.repo.claimTotpStep(user.id, step))) return true;
    }
    if (tf.sms_enabled) return this.repo.consumeSmsCode(user.id, sha256Hex(clean), this.clock.now().toISOString());
    return false;
  }

  /** The time step a code belongs to (this one or a neighbour), or undefined when it is not a code of `secret`. */
  private totpStep(user: UserRow, secret: string, code: string): number | undefined {
    const timestamp = this.clock.now().getTime();
    const delta = totpFor(secret, user.username).validate({ token: code, timestamp, window: 1 });
    return delta === null ? undefined : Math.floor(timestamp / 1000 / PERIOD) + delta;
  }
}
