import { z } from 'zod';
import { DELIVERY_METHODS } from '../contract/wire/accounts';
import { Password } from '../contract/bodies/accounts';

/* The bodies the web UI sends too: contract/bodies/accounts.ts. */
export {
  CreateTokenBody,
  CreateUserBody,
  NewTokenBody,
  ProofBody,
  RequestCodeBody,
  SettingsBody,
  SmsEnableBody,
  TotpConfirmBody,
  UpdateUserBody,
} from '../contract/bodies/accounts';

export const ResetPasswordBody = z.object({ user: z.object({ password: Password }) });

export { IdParams, NameParams } from '../http/params';
export const MethodParams = z.object({ method: z.enum(DELIVERY_METHODS) });
