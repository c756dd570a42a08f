import { useState, type FormEvent, type ReactNode } from 'react';
import type { z } from 'zod';
import type { QueryKey } from '@tanstack/react-query';
import { ErrorNote, Loading, SecretOnce, Section, confirmed, useAction } from '../ui';
import { When } from '../relative-time';
import { CardTable } from '../card-table';
import { Field } from '../form-rules';
import { checked, formError, hintOf, issueAt } from '../form-issues';
import { TokenDescription } from '../../../../daemon/src/contract/bodies/accounts';

/** A token as its list shows it: never the secret. `current`: the one this page signs in with (API tokens only). */
export interface TokenRow {
  id: string;
  description: string;
  createdAt: string;
  lastUsedAt: string | null;
  current?: boolean;
}

interface TokenSectionProps {
  title: string;
  tokens: { isLoading: boolean; error: unknown; data?: TokenRow[] };
  /** The create form's accessible name and its description field's name. */
  form: { label: string; field: string };
  /** Makes a token with the description and answers its secret (shown once). */
  create: (description: string) => Promise<string | null>;
  revoke: (id: string) => Promise<unknown>;
  /** The label of the secret's copy field. */
  secretLabel: string;
  /** What the revoke confirmation says (it adds "cannot be undone"). */
  revokeWarning: string;
  /** What a create or a revoke changes. */
  changes: { created: QueryKey[]; revoked: QueryKey[] };
  /** The current token's row offers this instead of Revoke (revoking one's own session would end it unasked). */
  current?: { label: string; run: () => void };
  /** The section's anchor, for links from other pages. */
  id?: string;
  /** How a token is used, in a line under the form. */
  usage?: ReactNode;
  /** The name field's rule and label, and the create button's (a token's description by default). */
  naming?: { rule: z.ZodType; label: string; button: string };
}

const DESCRIPTION = { rule: TokenDescription, label: 'Description', button: 'Create token' };

/**
 * The tokens of a user or of an agent pool: a form to make one, its secret shown once, then the
 * list with a Revoke button each.
 */
export function TokenSection({
  title,
  tokens,
  form,
  create,
  revoke,
  secretLabel,
  revokeWarning,
  changes,
  current,
  id,
  usage,
  naming = DESCRIPTION,
}: TokenSectionProps) {
  const [description, setDescription] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  // Both kinds of token take the contract's one description rule (the issue of a bare value is at path "").
  const made = useAction(
    () => create(checked(naming.rule, description)),
    changes.created,
    (s) => {
      setSecret(s);
      setDescription('');
    },
  );
  const revoked = useAction(revoke, changes.revoked);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    made.mutate(undefined);
  };
  const newToken = (
    <form className="inline" onSubmit={submit} aria-label={form.label} noValidate>
      <Field label={naming.label} hint={hintOf(naming.rule)} issue={issueAt(made.error, '')}>
        {(control) => (
          <input
            name={form.field}
            autoComplete="off"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            {...control}
          />
        )}
      </Field>
      <button type="submit" disabled={made.isPending}>
        {naming.button}
      </button>
    </form>
  );
  return (
    <Section title={title} actions={newToken} id={id}>
      {usage && <p className="muted">{usage}</p>}
      <ErrorNote error={formError(made.error) ?? revoked.error} />
      <SecretOnce secret={secret} label={secretLabel} onDone={() => setSecret(null)} />
      {tokens.isLoading ? <Loading what="tokens" /> : <ErrorNote error={tokens.error} />}
      {tokens.data?.length === 0 && <p className="muted">No tokens yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <CardTable label={title} columns={['Description', 'Created', 'Last used', 'Change']}>
          {tokens.data.map((t) => (
            <tr key={t.id} aria-current={t.current ? 'true' : undefined}>
              <td data-label="Description">
                {t.description || t.id}
                {t.current && <span className="badge">this session</span>}
              </td>
              <td data-label="Created">
                <When iso={t.createdAt} />
              </td>
              <td data-label="Last used">
                <When iso={t.lastUsedAt} never="never" />
              </td>
              <td>
                {t.current && current ? (
                  <button type="button" className="small" onClick={current.run}>
                    {current.label}
                  </button>
                ) : (
                  <button
                    type="button"
                    className="danger small"
                    onClick={() => confirmed(revokeWarning) && revoked.mutate(t.id)}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </CardTable>
      )}
    </Section>
  );
}
