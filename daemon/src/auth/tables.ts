import type { Generated } from 'kysely';
import type { ServicePrincipalTables } from './service-principals/tables';

export interface UsersTable {
  id: string;
  username: string;
  username_key: string;
  email: string | null;
  email_key: string | null;
  password_hash: string;
  is_admin: Generated<number>;
  profile_markdown: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  token_hash: string;
  description: Generated<string>;
  created_at: string;
  last_used_at: string | null;
  /** 1: the web UI's session (ui/session-routes.ts), not a token the user made. */
  session: Generated<number>;
  /** When it stops working (sessions: when their cookie ends); null: until revoked. */
  expires_at: Generated<string | null>;
}

export interface TwoFactorTable {
  user_id: string;
  /** Sealed (lib/secret-box.ts): the secret in use. */
  totp_secret: string | null;
  /** Sealed: a new secret waiting for its first code; it replaces `totp_secret` only then. */
  totp_pending_secret: string | null;
  totp_enabled: Generated<number>;
  sms_phone: string | null;
  sms_enabled: Generated<number>;
  last_totp_step: Generated<number>;
}

export interface TwoFactorCodesTable {
  user_id: string;
  code_hash: string;
  expires_at: string;
}

/** Recovery codes (auth/two-factor/recovery-codes.ts): each one's sha256, deleted when used. */
export interface TwoFactorRecoveryCodesTable {
  user_id: string;
  code_hash: string;
  created_at: string;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** Users and what they sign in with; organizations and memberships: orgs/tables.ts. */
export interface AccountTables extends ServicePrincipalTables {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  two_factor: TwoFactorTable;
  two_factor_codes: TwoFactorCodesTable;
  two_factor_recovery_codes: TwoFactorRecoveryCodesTable;
  settings: SettingsTable;
}
