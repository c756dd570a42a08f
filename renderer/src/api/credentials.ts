import type { Fetcher } from './client';
import { load } from './load';
import { TwoFactorMethodsAnswer } from '../../../daemon/src/contract/wire-accounts';

const B = '/api/boxyard';

/** At least this many characters (the daemon's auth/passwords.ts refuses shorter ones). */
export const MIN_PASSWORD_LENGTH = 12;

/**
 * Two-factor changes prove it is still the user: the daemon wants the current password with each
 * (403 `reauthentication_required` without it), so a token alone cannot lock its owner out.
 */
export const confirmTotp = (api: Fetcher, code: string, currentPassword: string) =>
  load(api, TwoFactorMethodsAnswer, `${B}/two-factor/totp/confirm`, { method: 'POST', body: { two_factor: { code }, current_password: currentPassword } });
export const enableSms = (api: Fetcher, phone: string, currentPassword: string) =>
  load(api, TwoFactorMethodsAnswer, `${B}/two-factor/sms`, { method: 'POST', body: { two_factor: { phone }, current_password: currentPassword } });
export const disableTwoFactor = (api: Fetcher, method: 'app' | 'sms', currentPassword: string) =>
  api(`${B}/two-factor/${method}`, { method: 'DELETE', body: { current_password: currentPassword } });
