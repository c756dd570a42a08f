import { z } from 'zod';

/**
 * Boxyard's own account answers (under /api/boxyard, and the token answers of /api/v1) as the
 * daemon sends them: auth/serialize.ts builds them, the web UI checks what it reads against them.
 * Pure (zod only): the renderer bundles it without the daemon's runtime code.
 */

const time = z.string();

export const UserJson = z.object({
  username: z.string(),
  email: z.string().nullable(),
  admin: z.boolean(),
  profile_markdown: z.string(),
  created_at: time,
  updated_at: time,
});
export type UserJson = z.infer<typeof UserJson>;

/** `GET|POST /session`, `GET /user`, and each user change. */
export const UserAnswer = z.object({ user: UserJson });
/** `GET /session`: who is signed in, or `null` for a browser that sent no session at all. */
export const SessionAnswer = z.object({ user: UserJson.nullable() });
export type SessionAnswer = z.infer<typeof SessionAnswer>;
export const UsersAnswer = z.object({ users: z.array(UserJson) });

export const ORGANIZATION_ROLES = ['owner', 'member'] as const;
export type OrganizationRole = (typeof ORGANIZATION_ROLES)[number];

export const OrganizationJson = z.object({
  name: z.string(),
  email: z.string().nullable(),
  profile_markdown: z.string(),
  agent_pool_limit: z.number(),
  created_at: time,
  updated_at: time,
});
export type OrganizationJson = z.infer<typeof OrganizationJson>;

export const MemberJson = z.object({
  username: z.string(),
  role: z.enum(ORGANIZATION_ROLES),
  created_at: time,
  user_id: z.string(),
});
export type MemberJson = z.infer<typeof MemberJson>;

/**
 * `GET /organizations/:name`: the organization with its members, and whether the caller may manage them (an owner or
 * an administrator: orgs/service.ts isOwner), so the UI offers only what the caller may do.
 */
export const OrganizationDetailJson = OrganizationJson.extend({
  members: z.array(MemberJson),
  may_manage: z.boolean(),
});
export type OrganizationDetailJson = z.infer<typeof OrganizationDetailJson>;

export const OrganizationsAnswer = z.object({ organizations: z.array(OrganizationJson) });
export const OrganizationAnswer = z.object({ organization: OrganizationJson });
export const OrganizationDetailAnswer = z.object({ organization: OrganizationDetailJson });

/** An API token in the owner's list: never the secret, only its hash. */
export const ApiTokenJson = z.object({
  id: z.string(),
  description: z.string(),
  token_hash: z.string(),
  created_at: time,
  last_used_at: time.nullable(),
  /** The web UI's session (made by signing in), not a token the user made. */
  session: z.boolean(),
  /** When it stops working (a session: when its cookie ends); null: until revoked. */
  expires_at: time.nullable(),
  /** The token this request came with: in the web UI, the caller's own session. */
  current: z.boolean(),
});
export type ApiTokenJson = z.infer<typeof ApiTokenJson>;
export const ApiTokensAnswer = z.object({ tokens: z.array(ApiTokenJson) });

/** A service principal in its organization's list (`GET /api/boxyard/organizations/:name/service-principals`). */
export const ServicePrincipalJson = z.object({
  client_id: z.string(),
  name: z.string(),
  created_at: time,
  /** When it last got a token. */
  last_used_at: time.nullable(),
});
export type ServicePrincipalJson = z.infer<typeof ServicePrincipalJson>;
export const ServicePrincipalsAnswer = z.object({ service_principals: z.array(ServicePrincipalJson) });
/** A principal just made: the only answer with its secret. */
export const ServicePrincipalCreatedAnswer = z.object({
  service_principal: ServicePrincipalJson.extend({ client_secret: z.string() }),
});
export type ServicePrincipalCreatedAnswer = z.infer<typeof ServicePrincipalCreatedAnswer>;

/** A token just made (`POST /api/v1/authenticate`, `POST /api/boxyard/tokens`): the only answer with the secret. */
export const CreatedTokenJson = z.object({
  description: z.string(),
  token: z.string(),
  token_hash: z.string(),
  created_at: time,
  id: z.string(),
});
export type CreatedTokenJson = z.infer<typeof CreatedTokenJson>;

export const DELIVERY_METHODS = ['app', 'sms'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

/** `GET /two-factor` and each change that switches a method on. */
export const TwoFactorMethodsAnswer = z.object({
  two_factor: z.object({
    delivery_methods: z.array(z.enum(DELIVERY_METHODS)),
    /** Recovery codes not used yet. */
    recovery_codes_left: z.number(),
    /** New recovery codes, shown this once: when two-factor was switched on, or new ones asked for. */
    recovery_codes: z.array(z.string()).optional(),
  }),
});
/** `POST /two-factor/totp`: the new secret, waiting for its first code. */
export const TotpSetupAnswer = z.object({ two_factor: z.object({ secret: z.string(), otpauth_url: z.string() }) });
/** `POST /api/v1/two-factor/request-code`. */
export const SmsCodeSentAnswer = z.object({ two_factor: z.object({ obfuscated_destination: z.string() }) });

/** Settings changed at run time (`GET|PUT /settings`), kept in the database (auth/settings.ts). */
export const RuntimeSettingsJson = z.object({
  maintenance: z.boolean(),
  /** No outbound connection at all: mirror jobs wait, the pull-through cache serves what it holds. */
  offline: z.boolean(),
  /** Offline because the daemon was started with --offline: the switch cannot turn it off. */
  offline_forced: z.boolean(),
  /** The upstream the pull-through cache answers unknown boxes from; null: no cache. */
  pull_through_upstream_id: z.string().nullable(),
  /** A cached box's catalog is asked upstream again when older than this (Verdaccio's maxage). */
  cache_max_age_minutes: z.number(),
  /**
   * Hosts and networks (`192.168.1.20`, `10.0.0.0/8`, `boxyard.lab`, `*.lab`) that upstreams made by
   * non-administrators may reach besides public addresses (server-side request forgery).
   */
  mirror_allowed_hosts: z.array(z.string()),
});
export type RuntimeSettingsJson = z.infer<typeof RuntimeSettingsJson>;
export const SettingsAnswer = z.object({ settings: RuntimeSettingsJson });

/** `GET /user-names?q=`: up to ten usernames starting with `q`, by name. */
export const UserNamesAnswer = z.object({ users: z.array(z.object({ username: z.string() })) });
