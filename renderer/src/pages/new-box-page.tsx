import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { createBox } from '../api/boxes';
import { useSession } from '../api/session';
import { useNamespaces } from '../api/use-namespaces';
import { ErrorNote, Section, useAction } from '../components/ui';
import { queryKeys } from '../api/query-keys';

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
  const create = useAction(
    () => createBox(api, { ...form, username: owner }),
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
        <form className="stack" onSubmit={submit}>
          <label>
            Owner
            <select name="username" value={owner} onChange={(e) => setForm({ ...form, username: e.target.value })}>
              {ns.names.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <label>
            Name
            <input
              name="name"
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
              required
              pattern="[A-Za-z0-9._\-]+"
              title="letters, digits, . _ -"
            />
          </label>
          <label>
            Short description
            <input
              name="short_description"
              value={form.short_description}
              onChange={(e) => setForm({ ...form, short_description: e.target.value })}
            />
          </label>
          <label>
            Description (Markdown)
            <textarea
              name="description"
              rows={4}
              value={form.description}
              onChange={(e) => setForm({ ...form, description: e.target.value })}
            />
          </label>
          <label className="check">
            <input
              type="checkbox"
              name="is_private"
              checked={form.is_private}
              onChange={(e) => setForm({ ...form, is_private: e.target.checked })}
            />{' '}
            Private (only you and your organization can see it)
          </label>
          <p>
            Will create: <output aria-label="The new box">{`${owner || 'OWNER'}/${form.name || 'NAME'}`}</output>
          </p>
          <ErrorNote error={create.error} />
          <button type="submit" className="primary" disabled={create.isPending || !owner}>
            Create box
          </button>
        </form>
      </Section>
    </>
  );
}
