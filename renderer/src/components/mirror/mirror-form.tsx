import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createMirror, listUpstreams, splitList, type NewMirror } from '../../api/mirrors';
import { useSession } from '../../api/session';
import { numberOrUndefined } from '../format';
import { ErrorNote, useAction } from '../ui';
import { queryKeys } from '../../api/query-keys';
import { ARCHITECTURES, isArchitecture, type Architecture } from '../../../../daemon/src/contract/bodies/registry';
import { CreateMirror } from '../../../../daemon/src/contract/bodies/mirror';
import { Field } from '../form-rules';
import { checked, formError, hintOf, issueAt } from '../form-issues';
import { FilterFields, TAG_PATTERN, VersionFields, type Setter } from './mirror-fields';

const RULES = CreateMirror.shape;

export interface Draft {
  upstream: string;
  source: string;
  target: string;
  versionMode: 'all' | 'range' | 'latest';
  versions: string;
  latest: string;
  providers: string;
  architectures: string;
  visibility: '' | 'public' | 'private';
  interval: string;
  retain: string;
  run: boolean;
}
const EMPTY: Draft = {
  upstream: '',
  source: '',
  target: '',
  versionMode: 'all',
  versions: '',
  latest: '3',
  providers: '',
  architectures: '',
  visibility: '',
  interval: '',
  retain: '',
  run: true,
};

/** The architectures typed in, each one vagrant knows (said here rather than by the daemon's 422). */
function architectureList(text: string): Architecture[] {
  const list = splitList(text);
  const unknown = list.filter((a) => !isArchitecture(a));
  if (unknown.length) throw new Error(`Unknown architecture ${unknown.join(', ')}: use ${ARCHITECTURES.join(', ')}.`);
  return list.filter(isArchitecture);
}

function toMirror(d: Draft, upstreamId: string): NewMirror {
  const m: NewMirror = { upstream_id: upstreamId, source: d.source.trim(), run: d.run };
  if (d.target.trim()) m.target = d.target.trim();
  if (d.versionMode === 'range') m.versions = d.versions.trim();
  if (d.versionMode === 'latest') m.latest = Number(d.latest);
  const providers = splitList(d.providers);
  const architectures = architectureList(d.architectures);
  if (providers.length) m.providers = providers;
  if (architectures.length) m.architectures = architectures;
  if (d.visibility) m.private = d.visibility === 'private';
  m.interval_minutes = numberOrUndefined(d.interval);
  m.retain = numberOrUndefined(d.retain);
  return m;
}

/** Creates a mirror of ORG/BOX (or every box of ORG) from an upstream, and runs it at once unless told not to. */
export function NewMirrorForm() {
  const { api } = useSession();
  const upstreams = useQuery({ queryKey: queryKeys.upstreams, queryFn: () => listUpstreams(api) });
  const [d, setD] = useState<Draft>(EMPTY);
  const set: Setter = (patch) => setD({ ...d, ...patch });
  const upstreamId = d.upstream || upstreams.data?.[0]?.id || '';
  const create = useAction(
    () => createMirror(api, checked(CreateMirror, toMirror(d, upstreamId))),
    [queryKeys.mirrors],
    () => setD({ ...EMPTY, upstream: d.upstream }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
  const error = create.error;
  if (upstreams.data?.length === 0) return <p className="muted">Add an upstream above to create a mirror.</p>;
  return (
    <form className="provider-form" onSubmit={submit} aria-label="New mirror">
      <label>
        Upstream
        <select
          name="upstream"
          aria-label="Upstream"
          value={upstreamId}
          onChange={(e) => set({ upstream: e.target.value })}
          required
        >
          {(upstreams.data ?? []).map((u) => (
            <option key={u.id} value={u.id}>
              {u.name}
            </option>
          ))}
        </select>
      </label>
      <Field label="Source" hint={hintOf(RULES.source)} issue={issueAt(error, 'source')}>
        {(control) => (
          <input
            name="source"
            value={d.source}
            onChange={(e) => set({ source: e.target.value })}
            required
            pattern={TAG_PATTERN}
            title="ORG/BOX or ORG"
            {...control}
          />
        )}
      </Field>
      <Field
        label="Target (optional)"
        hint={`${hintOf(RULES.target)} Empty: the same name as the source.`}
        issue={issueAt(error, 'target')}
      >
        {(control) => (
          <input
            name="target"
            value={d.target}
            onChange={(e) => set({ target: e.target.value })}
            pattern={TAG_PATTERN}
            title="ORG/BOX or ORG"
            {...control}
          />
        )}
      </Field>
      <VersionFields d={d} set={set} error={error} />
      <FilterFields d={d} set={set} error={error} />
      <label className="check">
        <input type="checkbox" name="run" checked={d.run} onChange={(e) => set({ run: e.target.checked })} /> Run now
      </label>
      <ErrorNote error={upstreams.error ?? formError(error)} />
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending || !upstreamId}>
          Create mirror
        </button>
      </div>
    </form>
  );
}
