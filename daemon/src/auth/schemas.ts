import { z } from 'zod';
import { DELIVERY_METHODS } from '../contract/wire/accounts';

/* The bodies the web UI sends too: contract/bodies/accounts.ts. */
export {
  CreateTokenBody,
  CreateUserBody,
  NewTokenBody,
  ProofBody,
  RequestCodeBody,
  ResetPasswordBody,
  SettingsBody,
  SmsEnableBody,
  TotpConfirmBody,
  UpdateUserBody,
} from '../contract/bodies/accounts';

export { IdParams, NameParams } from '../http/params';
export const MethodParams = z.object({ method: z.enum(DELIVERY_METHODS) });
/** `GET /user-names?q=`: the start of a username. */
export const UserNamesQuery = z.object({ q: z.string().trim().min(1).max(64) });
