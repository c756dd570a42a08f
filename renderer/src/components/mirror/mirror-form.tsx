import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { createMirror, listUpstreams, splitList, type NewMirror } from '../../api/mirrors';
import { useSession } from '../../api/session';
import { numberOrUndefined } from '../format';
import { ErrorNote, useAction } from '../ui';
import { queryKeys } from '../../api/query-keys';
import { ARCHITECTURES, isArchitecture, type Architecture } from '../../../../daemon/src/contract/bodies/registry';

interface Draft {
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

type Setter = (patch: Partial<Draft>) => void;

// Browsers compile `pattern` with the `v` flag, where `/` and `-` in a class must be escaped:
// an unescaped one makes the whole pattern invalid and silently ignored.
const TAG_PATTERN = '[^\\/\\s]+(\\/[^\\/\\s]+)?';

/** All versions, a vagrant-style constraint, or the latest N: the API takes one of them. */
function VersionFields({ d, set }: { d: Draft; set: Setter }) {
  return (
    <>
      <fieldset aria-label="Versions">
        <label className="check">
          <input
            type="radio"
            name="version_mode"
            checked={d.versionMode === 'all'}
            onChange={() => set({ versionMode: 'all' })}
          />{' '}
          All versions
        </label>
        <label className="check">
          <input
            type="radio"
            name="version_mode"
            checked={d.versionMode === 'range'}
            onChange={() => set({ versionMode: 'range' })}
          />{' '}
          Versions matching
        </label>
        <label className="check">
          <input
            type="radio"
            name="version_mode"
            checked={d.versionMode === 'latest'}
            onChange={() => set({ versionMode: 'latest' })}
          />{' '}
          Latest N
        </label>
      </fieldset>
      {d.versionMode === 'range' && (
        <label>
          Constraint
          <input
            name="versions"
            value={d.versions}
            onChange={(e) => set({ versions: e.target.value })}
            required
            placeholder=">= 1.0, < 2.0"
          />
        </label>
      )}
      {d.versionMode === 'latest' && (
        <label>
          Latest
          <input
            name="latest"
            type="number"
            min={1}
            value={d.latest}
            onChange={(e) => set({ latest: e.target.value })}
            required
          />
        </label>
      )}
    </>
  );
}

function FilterFields({ d, set }: { d: Draft; set: Setter }) {
  return (
    <>
      <label>
        Providers
        <input
          name="providers"
          value={d.providers}
          onChange={(e) => set({ providers: e.target.value })}
          placeholder="virtualbox, libvirt (all)"
        />
      </label>
      <label>
        Architectures
        <input
          name="architectures"
          value={d.architectures}
          onChange={(e) => set({ architectures: e.target.value })}
          placeholder="amd64, arm64 (all)"
        />
      </label>
      <label>
        Visibility
        <select
          name="visibility"
          aria-label="Visibility"
          value={d.visibility}
          onChange={(e) => set({ visibility: e.target.value as Draft['visibility'] })}
        >
          <option value="">default (private if the upstream has a token)</option>
          <option value="public">public</option>
          <option value="private">private</option>
        </select>
      </label>
      <label>
        Every (minutes)
        <input
          name="interval_minutes"
          type="number"
          min={1}
          value={d.interval}
          onChange={(e) => set({ interval: e.target.value })}
          placeholder="only when run"
        />
      </label>
      <label>
        Retain
        <input
          name="retain"
          type="number"
          min={1}
          value={d.retain}
          onChange={(e) => set({ retain: e.target.value })}
          placeholder="keep all"
        />
      </label>
    </>
  );
}

/** Creates a mirror of ORG/BOX (or every box of ORG) from an upstream, and runs it at once unless told not to. */
export function NewMirrorForm() {
  const { api } = useSession();
  const upstreams = useQuery({ queryKey: queryKeys.upstreams, queryFn: () => listUpstreams(api) });
  const [d, setD] = useState<Draft>(EMPTY);
  const set: Setter = (patch) => setD({ ...d, ...patch });
  const upstreamId = d.upstream || upstreams.data?.[0]?.id || '';
  const create = useAction(
    () => createMirror(api, toMirror(d, upstreamId)),
    [queryKeys.mirrors],
    () => setD({ ...EMPTY, upstream: d.upstream }),
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(undefined);
  };
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
      <label>
        Source
        <input
          name="source"
          value={d.source}
          onChange={(e) => set({ source: e.target.value })}
          required
          placeholder="ORG/BOX or ORG"
          pattern={TAG_PATTERN}
          title="ORG/BOX or ORG"
        />
      </label>
      <label>
        Target (optional)
        <input
          name="target"
          value={d.target}
          onChange={(e) => set({ target: e.target.value })}
          placeholder="same as source"
          pattern={TAG_PATTERN}
          title="ORG/BOX or ORG"
        />
      </label>
      <VersionFields d={d} set={set} />
      <FilterFields d={d} set={set} />
      <label className="check">
        <input type="checkbox" name="run" checked={d.run} onChange={(e) => set({ run: e.target.checked })} /> Run now
      </label>
      <ErrorNote error={upstreams.error ?? create.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={create.isPending || !upstreamId}>
          Create mirror
        </button>
      </div>
    </form>
  );
}
