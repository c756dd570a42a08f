import { z } from 'zod';
import { AccountName } from '../names';
import { ORGANIZATION_ROLES } from '../wire/accounts';

/**
 * What Boxyard's account changes take (under /api/boxyard, and the token requests of /api/v1)
 * as the web UI sends them: auth/schemas.ts and orgs/schemas.ts validate with these, the UI types
 * its bodies with `z.input` of the same. Pure (zod only).
 */

/** NIST SP 800-63B and OWASP: length is what makes a password hard to guess. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

const Login = z.object({
  login: z.string().min(1, 'user.login is required (username or e-mail address)').max(256),
  password: z.string().min(1, 'user.password is required').max(MAX_PASSWORD_LENGTH),
});

/**
 * `POST /api/v1/authenticate` as vagrant_cloud 3.0.5 sends it (`two_factor.code` may be null),
 * and the UI's sign-in (`POST /api/boxyard/session`).
 */
export const CreateTokenBody = z.object({
  user: Login,
  token: z.object({ description: z.string().max(1024).nullish() }).nullish(),
  two_factor: z.object({ code: z.string().max(32).nullish() }).nullish(),
});

/** `POST /api/v1/two-factor/request-code`: sends the SMS code a sign-in then gives. */
export const RequestCodeBody = z.object({
  user: Login,
  two_factor: z.object({ delivery_method: z.literal('sms', { message: 'two_factor.delivery_method must be "sms"' }) }),
});

export const Password = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH)
  .describe(`At least ${MIN_PASSWORD_LENGTH} characters: a few words in a row are long enough and easy to remember.`);
export const Email = z.email().max(256);

/** What a signed-in user sends to change a credential: the current password, or a current two-factor code. */
export const Proof = {
  current_password: z.string().max(MAX_PASSWORD_LENGTH).nullish(),
  current_code: z.string().max(32).nullish(),
};

/**
 * `PATCH /users/:name`: a user's own changes (a new password or e-mail address needs the Proof), or an administrator's.
 */
export const UpdateUserBody = z.object({
  user: z.object({
    password: Password.optional(),
    email: Email.nullish(),
    profile_markdown: z.string().max(100_000).optional(),
    admin: z.boolean().optional(),
  }),
  ...Proof,
});

/** `PUT /users/:name/password` (administrators): another user's password, their tokens revoked. */
export const ResetPasswordBody = z.object({ user: z.object({ password: Password }) });

/** `POST /users` (administrators). */
export const CreateUserBody = z.object({
  user: z.object({ username: AccountName, password: Password, email: Email.nullish(), admin: z.boolean().optional() }),
});

/** What a token (an API token or an agent token) is for: its list shows this, never the secret. */
export const TokenDescription = z
  .string()
  .max(1024, 'must be at most 1024 characters')
  .describe(
    'What the token is for, such as the machine or script that uses it: the list shows this, never the token. Up to 1024 characters.',
  );

/** `POST /tokens`: the answer carries the secret, once. */
export const NewTokenBody = z.object({
  token: z.object({ description: TokenDescription.default('') }).default({ description: '' }),
});

// Two-factor changes prove it is still the user (the current password or code), so a token alone cannot lock its owner
// out.
/** `POST /two-factor/totp/confirm`: the first code of the secret `POST /two-factor/totp` made. */
export const TotpConfirmBody = z.object({ two_factor: z.object({ code: z.string().min(1).max(32) }), ...Proof });
/** `POST /two-factor/sms`. */
export const SmsEnableBody = z.object({
  two_factor: z.object({ phone: z.string().regex(/^\+?[0-9 ()-]{6,24}$/, 'must be a phone number') }),
  ...Proof,
});
/** `DELETE /two-factor/:method`. */
export const ProofBody = z.object(Proof);

/** `PUT /settings` (administrators): absent keys stay as they are. */
export const SettingsBody = z.object({
  settings: z.object({
    maintenance: z.boolean().optional(),
    offline: z.boolean().optional(),
    pull_through_upstream_id: z.string().min(1).max(64).nullable().optional(),
    cache_max_age_minutes: z.number().int().min(0).max(525_600).optional(),
    /** Each an address, a network (CIDR), a host name or `*.domain` (the daemon checks which). */
    mirror_allowed_hosts: z.array(z.string().trim().min(1).max(255)).max(200).optional(),
  }),
});

/** `POST /organizations`: the caller becomes its owner. */
export const CreateOrganizationBody = z.object({
  organization: z.object({ name: AccountName, email: Email.nullish() }),
});
/** `PUT /organizations/:name/members/:username`: adds the user or changes their role. */
export const MemberBody = z.object({
  member: z.object({ role: z.enum(ORGANIZATION_ROLES).default('member') }).default({ role: 'member' }),
});

/** A service principal's name: what it is for ("packer on ci"), shown beside its client id. */
export const ServicePrincipalName = z
  .string()
  .trim()
  .min(1, 'name is required')
  .max(100)
  .regex(/^[^\p{Cc}]*$/u, 'no control characters')
  .describe('What it is for, e.g. "packer on ci": up to 100 characters.');

/** `POST /organizations/:name/service-principals`: a client id and secret that publish to the organization. */
export const CreateServicePrincipalBody = z.object({
  service_principal: z.object({ name: ServicePrincipalName }),
});
