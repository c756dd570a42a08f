import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createToken, listTokens, revokeToken } from '../../api/agents';
import { useSession } from '../../api/session';
import { TokenSection } from './token-section';
import { CopyField, Loading, Section } from '../ui';
import { useServerAccess } from '../../api/server-access';
import { agentLines } from '../agent-program';
import { queryKeys } from '../../api/query-keys';

/**
 * The command that starts an agent with a new token, on any machine that reaches this daemon (the URL the browser
 * reached it by): the trust step under the daemon's own CA, then the agent program fetched from the daemon and run
 * (agent-program.tsx). It holds the secret, so it is shown only with the secret: until dismissed or the page is left.
 */
function AgentCommand({ secret, onDone }: { secret: string; onDone: () => void }) {
  const { server, fingerprint, ready } = useServerAccess();
  return (
    <Section title="Start an agent with the new token">
      {!ready ? (
        <Loading what="how to reach this server" />
      ) : (
        <>
          <p className="muted">
            On any machine with Node.js 20 or later that reaches this server
            {fingerprint ? ', after the trust step under Run an agent' : ''} (add <code>--name NAME</code> to name the
            agent). The command holds the token: it is shown only now.
          </p>
          <CopyField label="boxyard agent command" lines value={agentLines(server, secret).join('\n')} />
        </>
      )}
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
        form={{ label: 'New agent token', field: 'token_description' }}
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
