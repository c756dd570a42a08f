import type { z } from 'zod';
import type { Fetcher } from './client';
import { load } from './load';
import { TwoFactorMethodsAnswer, type DeliveryMethod } from '../../../daemon/src/contract/wire/accounts';
import type { ProofBody, SmsEnableBody, TotpConfirmBody } from '../../../daemon/src/contract/bodies/accounts';

const B = '/api/boxyard';

/**
 * Two-factor changes prove it is still the user: the daemon wants the current password with each
 * (403 `reauthentication_required` without it), so a token alone cannot lock its owner out.
 */
export const confirmTotp = (api: Fetcher, code: string, currentPassword: string) =>
  load(api, TwoFactorMethodsAnswer, `${B}/two-factor/totp/confirm`, {
    method: 'POST',
    body: { two_factor: { code }, current_password: currentPassword } satisfies z.input<typeof TotpConfirmBody>,
  });
export const enableSms = (api: Fetcher, phone: string, currentPassword: string) =>
  load(api, TwoFactorMethodsAnswer, `${B}/two-factor/sms`, {
    method: 'POST',
    body: { two_factor: { phone }, current_password: currentPassword } satisfies z.input<typeof SmsEnableBody>,
  });
export const disableTwoFactor = (api: Fetcher, method: DeliveryMethod, currentPassword: string) =>
  api(`${B}/two-factor/${method}`, {
    method: 'DELETE',
    body: { current_password: currentPassword } satisfies z.input<typeof ProofBody>,
  });
/** A new set of recovery codes in place of the old one (shown once, in the answer). */
export const newRecoveryCodes = (api: Fetcher, currentPassword: string) =>
  load(api, TwoFactorMethodsAnswer, `${B}/two-factor/recovery-codes`, {
    method: 'POST',
    body: { current_password: currentPassword } satisfies z.input<typeof ProofBody>,
  });
