import { useQuery } from '@tanstack/react-query';
import { createToken, listTokens, revokeToken } from '../../api/agents';
import { useSession } from '../../api/session';
import { TokenSection } from './token-section';
import { queryKeys } from '../../api/query-keys';

/** A pool's agent tokens; a new token's secret is shown here once and never again. */
export function AgentTokens({ poolId }: { poolId: string }) {
  const { api } = useSession();
  const tokens = useQuery({
    queryKey: queryKeys.agentTokens(poolId),
    queryFn: () => listTokens(api, poolId),
    select: (ts) => ts.map((t) => ({ id: t.id, description: t.attributes.description, createdAt: t.attributes['created-at'], lastUsedAt: t.attributes['last-used-at'] })),
  });
  return (
    <TokenSection
      title="Agent tokens" tokens={tokens}
      form={{ label: 'New agent token', field: 'token_description', placeholder: 'Description' }}
      create={(description) => createToken(api, poolId, description).then((t) => t.attributes.token ?? null)}
      revoke={(id) => revokeToken(api, id)}
      secretLabel="agent token" revokeWarning="Revoke this token (its agents stop)"
      changes={{ created: [queryKeys.agentTokens(poolId)], revoked: [queryKeys.agentTokens(poolId), queryKeys.agents(poolId)] }}
    />
  );
}
