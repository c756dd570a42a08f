import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createToken, listTokens, revokeToken } from '../../api/agents';
import { useSession } from '../../api/session';
import { TokenSection } from './token-section';
import { CopyField, Section } from '../ui';
import { queryKeys } from '../../api/query-keys';

/**
 * The command that starts an agent with a new token, on any machine that reaches this daemon (the
 * URL the browser reached it by). It holds the secret, so it is shown only with the secret: until
 * dismissed or the page is left.
 */
function AgentCommand({ secret, onDone }: { secret: string; onDone: () => void }) {
  const command = `boxyard agent --url ${window.location.origin} --token ${secret}`;
  return (
    <Section title="Start an agent with the new token">
      <p className="muted">
        On any machine that reaches this server (add <code>--name NAME</code> to name the agent). The command holds the
        token: it is shown only now.
      </p>
      <CopyField label="boxyard agent command" value={command} />
      <button type="button" className="link" onClick={onDone}>
        Hide the command
      </button>
    </Section>
  );
}

/** A pool's agent tokens; a new token's secret is shown here once and never again, with the command that uses it. */
export function AgentTokens({ poolId }: { poolId: string }) {
  const { api } = useSession();
  const [secret, setSecret] = useState<string | null>(null);
  const tokens = useQuery({
    queryKey: queryKeys.agentTokens(poolId),
    queryFn: () => listTokens(api, poolId),
    select: (ts) =>
      ts.map((t) => ({
        id: t.id,
        description: t.attributes.description,
        createdAt: t.attributes['created-at'],
        lastUsedAt: t.attributes['last-used-at'],
      })),
  });
  const create = async (description: string) => {
    const made = (await createToken(api, poolId, description)).attributes.token ?? null;
    setSecret(made);
    return made;
  };
  return (
    <>
      <TokenSection
        title="Agent tokens"
        tokens={tokens}
        form={{ label: 'New agent token', field: 'token_description', placeholder: 'Description' }}
        create={create}
        revoke={(id) => revokeToken(api, id)}
        secretLabel="agent token"
        revokeWarning="Revoke this token (its agents stop)"
        changes={{
          created: [queryKeys.agentTokens(poolId)],
          revoked: [queryKeys.agentTokens(poolId), queryKeys.agents(poolId)],
        }}
      />
      {secret && <AgentCommand secret={secret} onDone={() => setSecret(null)} />}
    </>
  );
}
