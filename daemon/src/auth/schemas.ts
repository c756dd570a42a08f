import { z } from 'zod';
import { DELIVERY_METHODS } from '../contract/wire-accounts';
import { Email, Password, Proof } from '../contract/bodies-accounts';

/* The bodies the web UI sends too: contract/bodies-accounts.ts. */
export {
  CreateTokenBody, CreateUserBody, NewTokenBody, ProofBody, RequestCodeBody, SettingsBody, SmsEnableBody, TotpConfirmBody,
} from '../contract/bodies-accounts';

export const UpdateUserBody = z.object({
  user: z.object({ password: Password.optional(), email: Email.nullish(), profile_markdown: z.string().max(100_000).optional(), admin: z.boolean().optional() }),
  ...Proof,
});
export const ResetPasswordBody = z.object({ user: z.object({ password: Password }) });

export { IdParams, NameParams } from '../http/params';
export const MethodParams = z.object({ method: z.enum(DELIVERY_METHODS) });
