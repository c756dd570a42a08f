import type { CreatedToken } from './tokens-service';
import type { TokenRow, UserRow } from './repository';

export const tokenCreated = (t: CreatedToken) => ({
  description: t.description,
  token: t.token,
  token_hash: t.token_hash,
  created_at: t.created_at,
  id: t.id,
});

export const tokenListed = (t: TokenRow) => ({
  id: t.id,
  description: t.description,
  token_hash: t.token_hash,
  created_at: t.created_at,
  last_used_at: t.last_used_at,
});

export const userSelf = (u: UserRow) => ({
  username: u.username,
  email: u.email,
  admin: u.is_admin === 1,
  profile_markdown: u.profile_markdown,
  created_at: u.created_at,
  updated_at: u.updated_at,
});
