import { useId, useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { createBox } from '../api/boxes';
import { useSession } from '../api/session';
import { useNamespaces } from '../api/use-namespaces';
import { ErrorNote, Section, useAction } from '../components/ui';
import { queryKeys } from '../api/query-keys';
import { isApiError } from '../api/client';
import { CreateBox } from '../../../daemon/src/contract/bodies/registry';
import { Field } from '../components/form-rules';
import { checked, formError, hintOf, issueAt } from '../components/form-issues';

const RULES = CreateBox.shape;
/** A box of that name the owner has already is the name field's to say. */
const nameTaken = (e: unknown) => isApiError(e, 'conflict');

/** A new box: each field's rule under it before anything is typed, and what is wrong beside the field. */
export function NewBoxPage() {
  const { api, username } = useSession();
  const ns = useNamespaces();
  const navigate = useNavigate();
  // An organization's page links here with ?owner=ORG: its boxes are what its members share.
  const [query] = useSearchParams();
  const [form, setForm] = useState({
    username: query.get('owner') ?? '',
    name: '',
    short_description: '',
    description: '',
    is_private: false,
  });
  const owner = form.username || username || '';
  const privateHint = useId();
  const create = useAction(
    () => createBox(api, checked(CreateBox, { ...form, username: owner })),
    [queryKeys.namespaces],
    (b) => navigate(`/boxes/${b.username}/${b.name}`),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  return (
    <>
      <div className="page-head">
        <h1>New box</h1>
      </div>
      <Section title="Name and description">
        <form className="stack" onSubmit={submit} aria-label="New box" noValidate>
          <Field label="Owner" hint={hintOf(RULES.username)} issue={issueAt(create.error, 'username')}>
            {(control) => (
              <select
                name="username"
                value={owner}
                onChange={(e) => setForm({ ...form, username: e.target.value })}
                {...control}
              >
                {ns.names.map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Name" hint={hintOf(RULES.name)} issue={issueAt(create.error, 'name', nameTaken)}>
            {(control) => (
              <input
                name="name"
                autoComplete="off"
                value={form.name}
                onChange={(e) => setForm({ ...form, name: e.target.value })}
                {...control}
              />
            )}
          </Field>
          <Field
            label="Short description"
            hint={hintOf(RULES.short_description)}
            issue={issueAt(create.error, 'short_description')}
          >
            {(control) => (
              <input
                name="short_description"
                value={form.short_description}
                onChange={(e) => setForm({ ...form, short_description: e.target.value })}
                {...control}
              />
            )}
          </Field>
          <Field
            label="Description (Markdown)"
            hint={hintOf(RULES.description)}
            issue={issueAt(create.error, 'description')}
          >
            {(control) => (
              <textarea
                name="description"
                rows={4}
                value={form.description}
                onChange={(e) => setForm({ ...form, description: e.target.value })}
                {...control}
              />
            )}
          </Field>
          <div className="field">
            <label className="check">
              <input
                type="checkbox"
                name="is_private"
                checked={form.is_private}
                onChange={(e) => setForm({ ...form, is_private: e.target.checked })}
                aria-describedby={privateHint}
              />{' '}
              Private
            </label>
            <p className="hint" id={privateHint}>
              {hintOf(RULES.is_private)}
            </p>
          </div>
          <p>
            Will create: <output aria-label="The new box">{`${owner || 'OWNER'}/${form.name || 'NAME'}`}</output>
          </p>
          <ErrorNote error={formError(create.error, nameTaken)} />
          <button type="submit" className="primary" disabled={create.isPending || !owner}>
            Create box
          </button>
        </form>
      </Section>
    </>
  );
}
