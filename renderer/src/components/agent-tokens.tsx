import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createToken, listTokens, revokeToken } from '../api/agents';
import { useSession } from '../api/session';
import { ErrorNote, Loading, SecretOnce, Section, confirmed, formatTime, useAction } from './ui';
import { queryKeys } from '../api/query-keys';

/** A pool's agent tokens; a new token's secret is shown here once and never again. */
export function AgentTokens({ poolId }: { poolId: string }) {
  const { api } = useSession();
  const [description, setDescription] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const tokens = useQuery({ queryKey: queryKeys.agentTokens(poolId), queryFn: () => listTokens(api, poolId) });
  const create = useAction(() => createToken(api, poolId, description), [queryKeys.agentTokens(poolId)], (t) => {
    setSecret(t.attributes.token ?? null);
    setDescription('');
  });
  const revoke = useAction((id: string) => revokeToken(api, id), [queryKeys.agentTokens(poolId), queryKeys.agents(poolId)]);
  const submit = (e: FormEvent) => { e.preventDefault(); create.mutate(undefined); };
  const form = (
    <form className="inline" onSubmit={submit} aria-label="New agent token">
      <input name="token_description" placeholder="Description" value={description} onChange={(e) => setDescription(e.target.value)} required />
      <button type="submit" disabled={create.isPending}>Create token</button>
    </form>
  );
  return (
    <Section title="Agent tokens" actions={form}>
      <ErrorNote error={create.error ?? revoke.error} />
      <SecretOnce secret={secret} label="agent token" onDone={() => setSecret(null)} />
      {tokens.isLoading ? <Loading what="tokens" /> : <ErrorNote error={tokens.error} />}
      {tokens.data?.length === 0 && <p className="muted">No tokens yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <table>
          <thead><tr><th>Description</th><th>Created</th><th>Last used</th><th /></tr></thead>
          <tbody>
            {tokens.data.map((t) => (
              <tr key={t.id}>
                <td>{t.attributes.description ?? t.id}</td>
                <td>{formatTime(t.attributes['created-at'])}</td>
                <td>{formatTime(t.attributes['last-used-at'])}</td>
                <td><button type="button" className="danger small" onClick={() => confirmed('Revoke this token (its agents stop)') && revoke.mutate(t.id)}>Revoke</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
