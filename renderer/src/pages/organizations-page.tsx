import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { createOrganization } from '../api/accounts';
import { useSession } from '../api/session';
import { useNamespaces } from '../api/use-namespaces';
import { ErrorNote, Loading, Section, useAction } from '../components/ui';
import { queryKeys } from '../api/query-keys';

export function OrganizationsPage() {
  const { api } = useSession();
  const ns = useNamespaces();
  const [form, setForm] = useState({ name: '', email: '' });
  const nameField = useRef<HTMLInputElement>(null);
  const create = useAction(
    () => createOrganization(api, form.name, form.email),
    [queryKeys.organizations, queryKeys.namespaces],
    () => setForm({ name: '', email: '' }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  return (
    <>
      <div className="page-head">
        <h1>Organizations</h1>
      </div>
      <Section title="Your organizations">
        {ns.isLoading ? <Loading what="organizations" /> : <ErrorNote error={ns.error} />}
        {!ns.isLoading && ns.orgs.length === 0 && (
          <div className="next-step">
            <p>
              You are in no organization yet. An organization holds the boxes and agent pools its members share; its
              name is the first half of its boxes' names, as in <code>lab/debian</code>.
            </p>
            <button type="button" className="primary" onClick={() => nameField.current?.focus()}>
              Create an organization
            </button>
          </div>
        )}
        <ul className="plain">
          {ns.orgs.map((o) => (
            <li key={o}>
              <Link to={`/organizations/${o}`}>{o}</Link>
            </li>
          ))}
        </ul>
      </Section>
      <Section title="New organization">
        <form className="inline" onSubmit={submit}>
          <input
            ref={nameField}
            name="org_name"
            placeholder="Name"
            value={form.name}
            onChange={(e) => setForm({ ...form, name: e.target.value })}
            required
          />
          <input
            name="org_email"
            type="email"
            placeholder="E-mail (optional)"
            value={form.email}
            onChange={(e) => setForm({ ...form, email: e.target.value })}
          />
          <button type="submit" disabled={create.isPending}>
            Create organization
          </button>
        </form>
        <ErrorNote error={create.error} />
      </Section>
    </>
  );
}
