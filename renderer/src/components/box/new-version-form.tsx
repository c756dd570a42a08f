import { useState, type FormEvent } from 'react';
import { createVersion } from '../../api/boxes';
import { isApiError } from '../../api/client';
import { useSession } from '../../api/session';
import { queryKeys } from '../../api/query-keys';
import { CreateVersion } from '../../../../daemon/src/contract/bodies/registry';
import { Field } from '../form-rules';
import { checked, formError, hintOf, issueAt } from '../form-issues';
import { ErrorNote, useAction } from '../ui';

const RULES = CreateVersion.shape;
/** A version number the box has already is the number field's to say. */
const numberTaken = (e: unknown) => isApiError(e, 'conflict');

/** A new version of a box: its rules under each field before anything is typed, what is wrong beside the field. */
export function NewVersionForm({ user, name }: { user: string; name: string }) {
  const { api } = useSession();
  const [version, setVersion] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction(
    () => createVersion(api, user, name, checked(CreateVersion, { version, description })),
    [queryKeys.box(user, name)],
    () => {
      setVersion('');
      setDescription('');
    },
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  return (
    <form className="inline" onSubmit={submit} aria-label="New version" noValidate>
      <Field label="Version number" hint={hintOf(RULES.version)} issue={issueAt(create.error, 'version', numberTaken)}>
        {(control) => (
          <input
            name="version"
            autoComplete="off"
            value={version}
            onChange={(e) => setVersion(e.target.value)}
            {...control}
          />
        )}
      </Field>
      <Field label="What changed" hint={hintOf(RULES.description)} issue={issueAt(create.error, 'description')}>
        {(control) => (
          <input
            name="version_description"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            {...control}
          />
        )}
      </Field>
      <button type="submit" disabled={create.isPending}>
        Create version
      </button>
      <ErrorNote error={formError(create.error, numberTaken)} />
    </form>
  );
}
