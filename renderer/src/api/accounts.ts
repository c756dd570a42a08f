import { ApiError, apiPath, type Fetcher } from './client';
import { ApiToken, Organization, load } from './wire';
import { z } from 'zod';

const B = '/api/boxyard';

export interface Credentials { login: string; password: string; code?: string }

/** The signed-in user, as `GET /api/boxyard/session` and `GET /api/boxyard/user` answer. */
export const SelfUser = z.object({ user: z.object({ username: z.string(), admin: z.boolean() }) });
export type SelfUser = z.infer<typeof SelfUser>['user'];

/**
 * Signs in: the daemon sets an httpOnly session cookie (the page never holds a token) and answers
 * the user. A 406 ApiError means a two-factor code is needed.
 */
export const login = (api: Fetcher, c: Credentials) =>
  load(api, SelfUser, `${B}/session`, {
    method: 'POST',
    body: { user: { login: c.login, password: c.password }, two_factor: { code: c.code ?? null } },
  }).then((r) => r.user);

/** Who the session cookie signs in, or null when there is no (valid) session. */
export const currentSession = (api: Fetcher) =>
  load(api, SelfUser, `${B}/session`).then((r) => r.user).catch((e: unknown) => {
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  });

export const requestSmsCode = (api: Fetcher, c: Credentials) =>
  api<{ two_factor: { obfuscated_destination: string } }>('/api/v1/two-factor/request-code', {
    method: 'POST',
    body: { user: { login: c.login, password: c.password }, two_factor: { delivery_method: 'sms' } },
  });

/** Revokes the session's token on the daemon and clears its cookie. */
export const logout = (api: Fetcher) => api(`${B}/session`, { method: 'DELETE' });

export const listOrganizations = (api: Fetcher) =>
  load(api, z.object({ organizations: z.array(Organization) }), `${B}/organizations`).then((r) => r.organizations);
export const getOrganization = (api: Fetcher, name: string) =>
  load(api, z.object({ organization: Organization }), apiPath(`${B}/organizations`, name)).then((r) => r.organization);
export const createOrganization = (api: Fetcher, name: string, email: string) =>
  api(`${B}/organizations`, { method: 'POST', body: { organization: { name, email: email || null } } });
export const setMember = (api: Fetcher, org: string, username: string, role: 'owner' | 'member') =>
  api(`${apiPath(`${B}/organizations`, org)}/members/${encodeURIComponent(username)}`, { method: 'PUT', body: { member: { username, role } } });
export const removeMember = (api: Fetcher, org: string, username: string) =>
  api(`${apiPath(`${B}/organizations`, org)}/members/${encodeURIComponent(username)}`, { method: 'DELETE' });

export const listApiTokens = (api: Fetcher) => load(api, z.object({ tokens: z.array(ApiToken) }), `${B}/tokens`).then((r) => r.tokens);
export const createApiToken = (api: Fetcher, description: string) =>
  load(api, z.object({ token: z.string() }), `${B}/tokens`, { method: 'POST', body: { token: { description } } });
export const revokeApiToken = (api: Fetcher, id: string) => api(apiPath(`${B}/tokens`, id), { method: 'DELETE' });

const Methods = z.object({ two_factor: z.object({ delivery_methods: z.array(z.string()) }) });
export const twoFactorMethods = (api: Fetcher) => load(api, Methods, `${B}/two-factor`).then((r) => r.two_factor.delivery_methods);
export const beginTotp = (api: Fetcher) =>
  load(api, z.object({ two_factor: z.object({ secret: z.string(), otpauth_url: z.string() }) }), `${B}/two-factor/totp`, { method: 'POST' })
    .then((r) => r.two_factor);
// Confirming, switching SMS on and switching off need the current password: api/credentials.ts.

const RuntimeSettings = z.object({
  maintenance: z.boolean(),
  offline: z.boolean().nullish(),
  /** Started with --offline: the switch cannot turn it off. */
  offline_forced: z.boolean().nullish(),
  pull_through_upstream_id: z.string().nullish(),
  cache_max_age_minutes: z.number().nullish(),
});
export type RuntimeSettings = z.infer<typeof RuntimeSettings>;
export interface SettingsPatch { maintenance?: boolean; offline?: boolean; pull_through_upstream_id?: string | null; cache_max_age_minutes?: number }
const Settings = z.object({ settings: RuntimeSettings });
export const getSettings = (api: Fetcher) => load(api, Settings, `${B}/settings`).then((r) => r.settings);
export const updateSettings = (api: Fetcher, settings: SettingsPatch) =>
  load(api, Settings, `${B}/settings`, { method: 'PUT', body: { settings } }).then((r) => r.settings);
export const setMaintenance = (api: Fetcher, maintenance: boolean) => updateSettings(api, { maintenance });

export const UserSummary = z.object({ username: z.string(), email: z.string().nullish(), admin: z.boolean(), created_at: z.string().nullish() });
export type UserSummary = z.infer<typeof UserSummary>;
export const listUsers = (api: Fetcher) => load(api, z.object({ users: z.array(UserSummary) }), `${B}/users`).then((r) => r.users);
export interface NewUser { username: string; password: string; email: string; admin: boolean }
export const createUser = (api: Fetcher, u: NewUser) =>
  api(`${B}/users`, { method: 'POST', body: { user: { ...u, email: u.email || null } } });
export const deleteUser = (api: Fetcher, username: string) => api(apiPath(`${B}/users`, username), { method: 'DELETE' });
