import { randomInt } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import type { Clock } from '../lib/clock';
import { sha256Hex } from '../lib/crypto';
import { ValidationError } from '../http/errors';
import type { AccountRepository, UserRow, TwoFactorRow } from './repository';
import type { SmsSender } from './sms-sender';

export type DeliveryMethod = 'app' | 'sms';
const SMS_CODE_TTL_MS = 10 * 60 * 1000;
const PERIOD = 30;

const totpFor = (secret: string, label: string) =>
  new OTPAuth.TOTP({ issuer: 'Boxyard', label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: OTPAuth.Secret.fromBase32(secret) });

/** Shows a phone number as `*******1234`. */
export const obfuscate = (phone: string): string => phone.replace(/.(?=.{4})/g, '*');

/** TOTP (authenticator app) and SMS codes; every code works once. */
export class TwoFactorService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly clock: Clock,
    private readonly sms: SmsSender,
  ) {}

  async methods(user: UserRow): Promise<DeliveryMethod[]> {
    const tf = await this.repo.twoFactor(user.id);
    const out: DeliveryMethod[] = [];
    if (tf?.totp_enabled) out.push('app');
    if (tf?.sms_enabled) out.push('sms');
    return out;
  }

  /** Step 1 of TOTP: a new secret, not yet enforced until confirmed with a code. */
  async beginTotp(user: UserRow): Promise<{ secret: string; otpauth_url: string }> {
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    await this.repo.saveTwoFactor({ user_id: user.id, totp_secret: secret, totp_enabled: 0 });
    return { secret, otpauth_url: totpFor(secret, user.username).toString() };
  }

  async confirmTotp(user: UserRow, code: string): Promise<void> {
    const tf = await this.repo.twoFactor(user.id);
    if (!tf?.totp_secret) throw new ValidationError('Start authenticator setup first (POST /api/boxyard/two-factor/totp).');
    if (!(await this.checkTotp(user, tf, code))) throw new ValidationError('The authenticator code is wrong or was already used. Try the next code.');
    await this.repo.saveTwoFactor({ user_id: user.id, totp_enabled: 1 });
  }

  async enableSms(user: UserRow, phone: string): Promise<void> {
    await this.repo.saveTwoFactor({ user_id: user.id, sms_phone: phone, sms_enabled: 1 });
  }

  async disable(user: UserRow, method: DeliveryMethod): Promise<void> {
    if (method === 'app') await this.repo.saveTwoFactor({ user_id: user.id, totp_enabled: 0, totp_secret: null });
    else await this.repo.saveTwoFactor({ user_id: user.id, sms_enabled: 0, sms_phone: null });
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

  /** True when the code is a current TOTP or an unexpired SMS code that was not used before. */
  async verify(user: UserRow, code: string): Promise<boolean> {
    const clean = code.replace(/\s+/g, '');
    if (!/^\d{6}$/.test(clean)) return false;
    const tf = await this.repo.twoFactor(user.id);
    if (!tf) return false;
    if (tf.totp_enabled && (await this.checkTotp(user, tf, clean))) return true;
    if (tf.sms_enabled) return this.repo.consumeSmsCode(user.id, sha256Hex(clean), this.clock.now().toISOString());
    return false;
  }

  private async checkTotp(user: UserRow, tf: TwoFactorRow, code: string): Promise<boolean> {
    if (!tf.totp_secret) return false;
    const timestamp = this.clock.now().getTime();
    const delta = totpFor(tf.totp_secret, user.username).validate({ token: code, timestamp, window: 1 });
    if (delta === null) return false;
    const step = Math.floor(timestamp / 1000 / PERIOD) + delta;
    return this.repo.claimTotpStep(user.id, step);
  }
}
