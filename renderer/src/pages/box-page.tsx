import { useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { boxAddSnippet, createVersion, deleteBox, getBox } from '../api/boxes';
import { useSession } from '../api/session';
import { CopyField, ErrorNote, Loading, Section, confirmed, useAction } from '../components/ui';
import { VersionCard } from '../components/version-card';
import { useCachedBox } from '../components/mirror/cached-boxes';
import { ImportDrop } from '../components/mirror/import-drop';
import { queryKeys } from '../api/query-keys';

function NewVersionForm({ user, name }: { user: string; name: string }) {
  const { api } = useSession();
  const [version, setVersion] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction(() => createVersion(api, user, name, { version, description }), [queryKeys.box(user, name)], () => { setVersion(''); setDescription(''); });
  const submit = (e: FormEvent) => { e.preventDefault(); create.mutate(undefined); };
  return (
    <form className="inline" onSubmit={submit} aria-label="New version">
      <input name="version" placeholder="Version, e.g. 1.0.0" value={version} onChange={(e) => setVersion(e.target.value)} required />
      <input name="version_description" placeholder="What changed" value={description} onChange={(e) => setDescription(e.target.value)} />
      <button type="submit" disabled={create.isPending}>Create version</button>
      <ErrorNote error={create.error} />
    </form>
  );
}

/** One box: how to use it, its versions with providers, and every change the API allows. */
export function BoxPage() {
  const { user = '', name = '' } = useParams();
  const { api } = useSession();
  const navigate = useNavigate();
  const box = useQuery({ queryKey: queryKeys.box(user, name), queryFn: () => getBox(api, user, name) });
  const remove = useAction(() => deleteBox(api, user, name), [queryKeys.namespaces, queryKeys.searches], () => navigate('/boxes'));
  const cached = useCachedBox(`${user}/${name}`);
  if (box.isLoading) return <Loading what="box" />;
  if (!box.data) return <ErrorNote error={box.error} />;
  const b = box.data;
  const released = (b.versions ?? []).some((v) => v.status === 'active');
  return (
    <>
      <div className="page-head">
        <h1>
          {b.tag}{b.private ? <span className="badge">private</span> : null}
          {cached && <span className="badge badge-cached" title={cached.upstream?.url ?? undefined}>cached from {cached.upstream?.name ?? 'an upstream'}</span>}
        </h1>
        <button type="button" className="danger" onClick={() => confirmed(`Delete ${b.tag} with all its versions`) && remove.mutate(undefined)}>Delete box</button>
      </div>
      <ErrorNote error={remove.error} />
      {b.short_description && <p className="lead">{b.short_description}</p>}
      {b.description_markdown && <p className="description">{b.description_markdown}</p>}
      <Section title="Use it">
        <CopyField label="vagrant box add" value={boxAddSnippet(window.location.origin, b.tag, !!b.private)} />
        {!released && <p className="muted">Vagrant only sees released versions: release one below.</p>}
      </Section>
      <Section title="Versions" actions={<NewVersionForm user={user} name={name} />}>
        {(b.versions ?? []).length === 0 && <p className="muted">No versions yet.</p>}
        {(b.versions ?? []).map((v) => <VersionCard key={v.version} user={user} name={name} version={v} />)}
      </Section>
      <Section title="Import .box files">
        <ImportDrop user={user} name={name} />
      </Section>
    </>
  );
}
