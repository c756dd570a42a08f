import { useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { createOrganization, organizationBody } from '../api/accounts';
import { isApiError } from '../api/client';
import { CreateOrganizationBody } from '../../../daemon/src/contract/bodies/accounts';
import { Field } from '../components/form-rules';
import { checked, formError, hintOf, issueAt } from '../components/form-issues';
import { useSession } from '../api/session';
import { useNamespaces } from '../api/use-namespaces';
import { ErrorNote, Loading, Section, useAction } from '../components/ui';
import { queryKeys } from '../api/query-keys';

const RULES = CreateOrganizationBody.shape.organization.shape;
/** A name taken (by a user or another organization) is the name field's to say. */
const nameTaken = (e: unknown) => isApiError(e, 'conflict');

export function OrganizationsPage() {
  const { api } = useSession();
  const ns = useNamespaces();
  const [form, setForm] = useState({ name: '', email: '' });
  const nameField = useRef<HTMLInputElement>(null);
  const create = useAction(
    () => createOrganization(api, checked(CreateOrganizationBody, organizationBody(form.name, form.email))),
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
        <form className="provider-form" onSubmit={submit} aria-label="New organization">
          <Field label="Name" hint={hintOf(RULES.name)} issue={issueAt(create.error, 'organization.name', nameTaken)}>
            {(control) => (
              <input
                ref={nameField}
                name="org_name"
                value={form.name}
                onChange={(e) => setForm({ ...form, name: e.target.value })}
                required
                {...control}
              />
            )}
          </Field>
          <Field label="E-mail (optional)" issue={issueAt(create.error, 'organization.email')}>
            {(control) => (
              <input
                name="org_email"
                type="email"
                value={form.email}
                onChange={(e) => setForm({ ...form, email: e.target.value })}
                {...control}
              />
            )}
          </Field>
          <div className="row">
            <button type="submit" disabled={create.isPending}>
              Create organization
            </button>
          </div>
        </form>
        <ErrorNote error={formError(create.error, nameTaken)} />
      </Section>
    </>
  );
}
