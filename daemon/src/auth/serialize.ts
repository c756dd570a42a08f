import type { CreatedToken } from './tokens-service';
import type { TokenRow, UserRow } from './repository';

export const tokenCreated = (t: CreatedToken) => ({
  description: t.description,
  token: t.token,
  token_hash: t.token_hash,
  created_at: t.created_at,
  id: t.id,
});

/** A token in its owner's list; `current`: the one the request came with (the caller's own session, in the web UI). */
export const tokenListed = (t: TokenRow, currentId: string) => ({
  id: t.id,
  description: t.description,
  token_hash: t.token_hash,
  created_at: t.created_at,
  last_used_at: t.last_used_at,
  session: t.session === 1,
  expires_at: t.expires_at,
  current: t.id === currentId,
});

export const userSelf = (u: UserRow) => ({
  username: u.username,
  email: u.email,
  admin: u.is_admin === 1,
  profile_markdown: u.profile_markdown,
  created_at: u.created_at,
  updated_at: u.updated_at,
});
