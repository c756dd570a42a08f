import type { z } from 'zod';
import { apiPath, isApiError, type Fetcher } from './client';
import { load } from './load';
import {
  ApiTokensAnswer,
  CreatedTokenJson,
  OrganizationDetailAnswer,
  OrganizationsAnswer,
  ServicePrincipalCreatedAnswer,
  ServicePrincipalsAnswer,
  SettingsAnswer,
  SmsCodeSentAnswer,
  TotpSetupAnswer,
  TwoFactorMethodsAnswer,
  SessionAnswer,
  UserAnswer,
  UsersAnswer,
  UserNamesAnswer,
  type OrganizationRole,
  type UserJson,
} from '../../../daemon/src/contract/wire/accounts';
import type {
  CreateOrganizationBody,
  CreateServicePrincipalBody,
  CreateTokenBody,
  CreateUserBody,
  MemberBody,
  NewTokenBody,
  RequestCodeBody,
  ResetPasswordBody,
  SettingsBody,
  UpdateUserBody,
} from '../../../daemon/src/contract/bodies/accounts';

const B = '/api/boxyard';

export interface Credentials {
  login: string;
  password: string;
  code?: string;
}

/**
 * Signs in: the daemon sets an httpOnly session cookie (the page never holds a token) and answers
 * the user. An ApiError with code two_factor_required means a two-factor code is needed.
 */
export const login = (api: Fetcher, c: Credentials): Promise<UserJson> =>
  load(api, UserAnswer, `${B}/session`, {
    method: 'POST',
    body: { user: { login: c.login, password: c.password }, two_factor: { code: c.code ?? null } } satisfies z.input<
      typeof CreateTokenBody
    >,
  }).then((r) => r.user);

/** Who the session cookie signs in, or null when there is no (valid) session. */
export const currentSession = (api: Fetcher) =>
  load(api, SessionAnswer, `${B}/session`)
    .then((r): UserJson | null => r.user)
    .catch((e: unknown) => {
      if (isApiError(e, 'unauthorized')) return null;
      throw e;
    });

export const requestSmsCode = (api: Fetcher, c: Credentials) =>
  load(api, SmsCodeSentAnswer, '/api/v1/two-factor/request-code', {
    method: 'POST',
    body: { user: { login: c.login, password: c.password }, two_factor: { delivery_method: 'sms' } } satisfies z.input<
      typeof RequestCodeBody
    >,
  });

/** Revokes the session's token on the daemon and clears its cookie. */
export const logout = (api: Fetcher) => api(`${B}/session`, { method: 'DELETE' });

export const listOrganizations = (api: Fetcher) =>
  load(api, OrganizationsAnswer, `${B}/organizations`).then((r) => r.organizations);
export const getOrganization = (api: Fetcher, name: string) =>
  load(api, OrganizationDetailAnswer, apiPath(`${B}/organizations`, name)).then((r) => r.organization);
/** The body of `createOrganization`, which a form checks against the contract before sending it. */
export const organizationBody = (name: string, email: string): z.input<typeof CreateOrganizationBody> => ({
  organization: { name, email: email || null },
});
export const createOrganization = (api: Fetcher, body: z.input<typeof CreateOrganizationBody>) =>
  api(`${B}/organizations`, { method: 'POST', body });
/** Adds the user to the organization with the role, or changes their role (the path names both). */
export const setMember = (api: Fetcher, org: string, username: string, role: OrganizationRole) =>
  api(`${apiPath(`${B}/organizations`, org)}/members/${encodeURIComponent(username)}`, {
    method: 'PUT',
    body: { member: { role } } satisfies z.input<typeof MemberBody>,
  });
export const removeMember = (api: Fetcher, org: string, username: string) =>
  api(`${apiPath(`${B}/organizations`, org)}/members/${encodeURIComponent(username)}`, { method: 'DELETE' });

export const listApiTokens = (api: Fetcher) => load(api, ApiTokensAnswer, `${B}/tokens`).then((r) => r.tokens);
export const createApiToken = (api: Fetcher, description: string) =>
  load(api, CreatedTokenJson, `${B}/tokens`, {
    method: 'POST',
    body: { token: { description } } satisfies z.input<typeof NewTokenBody>,
  });
export const revokeApiToken = (api: Fetcher, id: string) => api(apiPath(`${B}/tokens`, id), { method: 'DELETE' });

/** An organization's service principals (its owners and administrators only): client ids, never secrets. */
const principalsOf = (org: string) => `${apiPath(`${B}/organizations`, org)}/service-principals`;
export const listServicePrincipals = (api: Fetcher, org: string) =>
  load(api, ServicePrincipalsAnswer, principalsOf(org)).then((r) => r.service_principals);
/** A new principal with its secret, which no other answer carries. */
export const createServicePrincipal = (api: Fetcher, org: string, name: string) =>
  load(api, ServicePrincipalCreatedAnswer, principalsOf(org), {
    method: 'POST',
    body: { service_principal: { name } } satisfies z.input<typeof CreateServicePrincipalBody>,
  }).then((r) => r.service_principal);
export const revokeServicePrincipal = (api: Fetcher, org: string, clientId: string) =>
  api(apiPath(principalsOf(org), clientId), { method: 'DELETE' });

/** The methods switched on and the recovery codes left. */
export const twoFactorState = (api: Fetcher) =>
  load(api, TwoFactorMethodsAnswer, `${B}/two-factor`).then((r) => r.two_factor);
export const beginTotp = (api: Fetcher) =>
  load(api, TotpSetupAnswer, `${B}/two-factor/totp`, { method: 'POST' }).then((r) => r.two_factor);
// Confirming, switching SMS on and switching off need the current password: api/credentials.ts.

export type SettingsPatch = z.input<typeof SettingsBody>['settings'];
export const getSettings = (api: Fetcher) => load(api, SettingsAnswer, `${B}/settings`).then((r) => r.settings);
export const updateSettings = (api: Fetcher, settings: SettingsPatch) =>
  load(api, SettingsAnswer, `${B}/settings`, { method: 'PUT', body: { settings } }).then((r) => r.settings);
export const setMaintenance = (api: Fetcher, maintenance: boolean) => updateSettings(api, { maintenance });

/**
 * Changes the signed-in user's password: the daemon wants the current one (403
 * `reauthentication_required` when it is wrong) and signs out every other session and token.
 */
export const changePassword = (api: Fetcher, username: string, currentPassword: string, password: string) =>
  load(api, UserAnswer, apiPath(`${B}/users`, username), {
    method: 'PATCH',
    body: { user: { password }, current_password: currentPassword } satisfies z.input<typeof UpdateUserBody>,
  }).then((r) => r.user);

export const listUsers = (api: Fetcher) => load(api, UsersAnswer, `${B}/users`).then((r) => r.users);
export const createUser = (api: Fetcher, user: z.input<typeof CreateUserBody>['user']) =>
  api(`${B}/users`, { method: 'POST', body: { user } });
export const deleteUser = (api: Fetcher, username: string) =>
  api(apiPath(`${B}/users`, username), { method: 'DELETE' });
/** An administrator sets another user's password (their tokens and sessions end). */
export const resetPassword = (api: Fetcher, username: string, password: string) =>
  load(api, UserAnswer, apiPath(`${B}/users`, username, 'password'), {
    method: 'PUT',
    body: { user: { password } } satisfies z.input<typeof ResetPasswordBody>,
  }).then((r) => r.user);
/** An administrator makes a user an administrator, or not (the last administrator stays one). */
export const setAdministrator = (api: Fetcher, username: string, admin: boolean) =>
  load(api, UserAnswer, apiPath(`${B}/users`, username), {
    method: 'PATCH',
    body: { user: { admin } } satisfies z.input<typeof UpdateUserBody>,
  }).then((r) => r.user);
/** Up to ten usernames starting with what was typed (adding a member). */
export const findUsernames = (api: Fetcher, prefix: string) =>
  load(api, UserNamesAnswer, `${B}/user-names?q=${encodeURIComponent(prefix)}`).then((r) =>
    r.users.map((u) => u.username),
  );
