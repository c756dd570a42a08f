import { z } from 'zod';
import { AccountName } from './names';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords';

const Login = z.object({
  login: z.string().min(1, 'user.login is required (username or e-mail address)').max(256),
  password: z.string().min(1, 'user.password is required').max(1024),
});

/** `POST /api/v1/authenticate` as vagrant_cloud 3.0.5 sends it (`two_factor.code` may be null). */
export const CreateTokenBody = z.object({
  user: Login,
  token: z.object({ description: z.string().max(1024).nullish() }).nullish(),
  two_factor: z.object({ code: z.string().max(32).nullish() }).nullish(),
});

export const RequestCodeBody = z.object({
  user: Login,
  two_factor: z.object({ delivery_method: z.literal('sms', { message: 'two_factor.delivery_method must be "sms"' }) }),
});

const Password = z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(MAX_PASSWORD_LENGTH);
const Email = z.email().max(256);

/** What a signed-in user sends to change a credential: the current password, or a current two-factor code. */
const Proof = {
  current_password: z.string().max(MAX_PASSWORD_LENGTH).nullish(),
  current_code: z.string().max(32).nullish(),
};

export const CreateUserBody = z.object({
  user: z.object({ username: AccountName, password: Password, email: Email.nullish(), admin: z.boolean().optional() }),
});
export const UpdateUserBody = z.object({
  user: z.object({ password: Password.optional(), email: Email.nullish(), profile_markdown: z.string().max(100_000).optional(), admin: z.boolean().optional() }),
  ...Proof,
});
export const ResetPasswordBody = z.object({ user: z.object({ password: Password }) });

export const CreateOrganizationBody = z.object({
  organization: z.object({ name: AccountName, email: Email.nullish() }),
});
export const UpdateOrganizationBody = z.object({
  organization: z.object({
    email: Email.nullish(),
    profile_markdown: z.string().max(100_000).optional(),
    agent_pool_limit: z.number().int().min(0).max(10_000).optional(),
  }),
});
export const MemberBody = z.object({
  member: z.object({ role: z.enum(['owner', 'member']).default('member') }).default({ role: 'member' }),
});

export const NewTokenBody = z.object({ token: z.object({ description: z.string().max(1024).default('') }).default({ description: '' }) });
export const TotpConfirmBody = z.object({ two_factor: z.object({ code: z.string().min(1).max(32) }), ...Proof });
export const SmsEnableBody = z.object({ two_factor: z.object({ phone: z.string().regex(/^\+?[0-9 ()-]{6,24}$/, 'must be a phone number') }), ...Proof });
export const ProofBody = z.object(Proof);
export const SettingsBody = z.object({
  settings: z.object({
    maintenance: z.boolean().optional(),
    offline: z.boolean().optional(),
    pull_through_upstream_id: z.string().min(1).max(64).nullable().optional(),
    cache_max_age_minutes: z.number().int().min(0).max(525_600).optional(),
  }),
});

export const NameParams = z.object({ name: z.string().min(1).max(256) });
export const MemberParams = z.object({ name: z.string().min(1).max(256), username: z.string().min(1).max(256) });
export const IdParams = z.object({ id: z.string().min(1).max(256) });
export const MethodParams = z.object({ method: z.enum(['app', 'sms']) });
