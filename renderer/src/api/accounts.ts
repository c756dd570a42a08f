import { apiPath, type Fetcher } from './client';
import { ApiToken, Organization, load } from './wire';
import { z } from 'zod';

const B = '/api/boxyard';

export interface Credentials { login: string; password: string; code?: string }

/** `POST /api/v1/authenticate`; a 406 ApiError means a two-factor code is needed. */
export const login = (api: Fetcher, c: Credentials) =>
  load(api, z.object({ token: z.string() }), '/api/v1/authenticate', {
    method: 'POST',
    body: { user: { login: c.login, password: c.password }, token: { description: 'Boxyard web UI' }, two_factor: { code: c.code ?? null } },
  });

export const requestSmsCode = (api: Fetcher, c: Credentials) =>
  api<{ two_factor: { obfuscated_destination: string } }>('/api/v1/two-factor/request-code', {
    method: 'POST',
    body: { user: { login: c.login, password: c.password }, two_factor: { delivery_method: 'sms' } },
  });

/** Revokes the token this session uses. */
export const logout = (api: Fetcher) => api('/api/v1/authenticate', { method: 'DELETE' });

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
export const confirmTotp = (api: Fetcher, code: string) =>
  load(api, Methods, `${B}/two-factor/totp/confirm`, { method: 'POST', body: { two_factor: { code } } });
export const disableTwoFactor = (api: Fetcher, method: 'app' | 'sms') => api(`${B}/two-factor/${method}`, { method: 'DELETE' });

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

export const enableSms = (api: Fetcher, phone: string) => load(api, Methods, `${B}/two-factor/sms`, { method: 'POST', body: { two_factor: { phone } } });
