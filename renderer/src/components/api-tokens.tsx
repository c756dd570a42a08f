import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createApiToken, listApiTokens, revokeApiToken } from '../api/accounts';
import { useSession } from '../api/session';
import { ErrorNote, Loading, SecretOnce, Section, confirmed, formatTime, useAction } from './ui';
import { queryKeys } from '../api/query-keys';

/** The user's API tokens (for vagrant cloud, go-tfe, scripts); a new secret is shown once. */
export function ApiTokens() {
  const { api } = useSession();
  const [description, setDescription] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const tokens = useQuery({ queryKey: queryKeys.apiTokens, queryFn: () => listApiTokens(api) });
  const create = useAction(() => createApiToken(api, description), [queryKeys.apiTokens], (t) => { setSecret(t.token); setDescription(''); });
  const revoke = useAction((id: string) => revokeApiToken(api, id), [queryKeys.apiTokens]);
  const submit = (e: FormEvent) => { e.preventDefault(); create.mutate(undefined); };
  return (
    <Section title="API tokens">
      <form className="inline" onSubmit={submit} aria-label="New API token">
        <input name="api_token_description" placeholder="What is it for?" value={description} onChange={(e) => setDescription(e.target.value)} required />
        <button type="submit" disabled={create.isPending}>Create token</button>
      </form>
      <ErrorNote error={create.error ?? revoke.error} />
      <SecretOnce secret={secret} label="API token" onDone={() => setSecret(null)} />
      {tokens.isLoading ? <Loading what="tokens" /> : <ErrorNote error={tokens.error} />}
      {tokens.data && (
        <table>
          <thead><tr><th>Description</th><th>Created</th><th>Last used</th><th /></tr></thead>
          <tbody>
            {tokens.data.map((t) => (
              <tr key={t.id}>
                <td>{t.description || t.id}</td>
                <td>{formatTime(t.created_at)}</td>
                <td>{formatTime(t.last_used_at)}</td>
                <td><button type="button" className="danger small" onClick={() => confirmed('Revoke this token') && revoke.mutate(t.id)}>Revoke</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
