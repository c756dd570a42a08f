import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { createApiToken, listApiTokens, revokeApiToken } from '../../api/accounts';
import { useSession } from '../../api/session';
import { TokenSection } from './token-section';
import { queryKeys } from '../../api/query-keys';

/** The anchor of the API tokens' section, which pages that ask for a token link to (`/settings#tokens`). */
export const TOKENS_ANCHOR = 'tokens';

/**
 * The user's API tokens (for vagrant cloud, go-tfe, scripts) and web UI sessions (one per browser
 * signed in); a new secret is shown once. This browser's own session offers Sign out, not Revoke.
 */
export function ApiTokens() {
  const { api, signOut } = useSession();
  const tokens = useQuery({
    queryKey: queryKeys.apiTokens,
    queryFn: () => listApiTokens(api),
    select: (ts) =>
      ts.map((t) => ({
        id: t.id,
        description: t.description,
        createdAt: t.created_at,
        lastUsedAt: t.last_used_at,
        current: t.current,
      })),
  });
  // The router does not scroll to a link's #anchor by itself.
  const { hash } = useLocation();
  useEffect(() => {
    if (hash === `#${TOKENS_ANCHOR}`) document.getElementById(TOKENS_ANCHOR)?.scrollIntoView();
  }, [hash]);
  return (
    <TokenSection
      title="API tokens and sessions"
      id={TOKENS_ANCHOR}
      tokens={tokens}
      form={{ label: 'New API token', field: 'api_token_description' }}
      create={(description) => createApiToken(api, description).then((t) => t.token)}
      revoke={(id) => revokeApiToken(api, id)}
      secretLabel="API token"
      revokeWarning="Revoke this token (a session's browser is signed out)"
      current={{ label: 'Sign out this browser', run: () => void signOut() }}
      changes={{ created: [queryKeys.apiTokens], revoked: [queryKeys.apiTokens] }}
      usage={
        <>
          How to use one: <code>VAGRANT_CLOUD_TOKEN=TOKEN</code> for vagrant and Packer (with{' '}
          <code>VAGRANT_SERVER_URL</code> set to this server), a <code>credentials</code> block for Terraform and
          go-tfe, or <code>Authorization: Bearer TOKEN</code> for scripts. It acts as you: keep it secret.
        </>
      }
    />
  );
}
