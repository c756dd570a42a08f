import { useNavigate, useParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { deleteBox, getBox, getBoxStats } from '../api/boxes';
import { useSession } from '../api/session';
import { ErrorNote, Loading, Section, confirmed, useAction } from '../components/ui';
import { useCachedBox } from '../components/mirror/cached-boxes';
import { BoxFileForm } from '../components/box-file/box-file-form';
import { queryKeys } from '../api/query-keys';
import type { BoxJson } from '../../../daemon/src/contract/wire/registry';
import { BoxAbout } from '../components/box/box-about';
import { UseIt } from '../components/box/use-it';
import { VersionList } from '../components/box/version-list';
import { UpstreamNote } from '../components/box/upstream-note';
import { NewVersionForm } from '../components/box/new-version-form';
import '../components/box/box.css';

/** "cached from …", for a box the pull-through cache made (asked only when signed in: the list needs a session). */
function CachedBadge({ tag }: { tag: string }) {
  const cached = useCachedBox(tag);
  if (!cached) return null;
  return (
    <span className="badge badge-cached" title={cached.upstream?.url ?? undefined}>
      cached from {cached.upstream?.name ?? 'an upstream'}
    </span>
  );
}

function Heading({ box, manage, signedIn }: { box: BoxJson; manage: boolean; signedIn: boolean }) {
  const { api } = useSession();
  const navigate = useNavigate();
  const remove = useAction(
    () => deleteBox(api, box.username, box.name),
    [queryKeys.namespaces, queryKeys.searches],
    () => navigate('/boxes'),
  );
  return (
    <>
      <div className="page-head">
        <h1>
          {box.tag}
          {box.private ? <span className="badge">private</span> : null}
          {signedIn && <CachedBadge tag={box.tag} />}
        </h1>
        {manage && (
          <button
            type="button"
            className="danger"
            onClick={() => confirmed(`Delete ${box.tag} with all its versions`) && remove.mutate(undefined)}
          >
            Delete box
          </button>
        )}
      </div>
      <ErrorNote error={remove.error} />
    </>
  );
}

/**
 * One box: what it is (descriptions rendered from Markdown), how to use it (`vagrant box add`, a
 * Vagrantfile), its versions a page at a time with each provider's architecture, size, downloads
 * and checksum. Anyone who may read the box sees that much; those who may change it (the stats
 * answer says so) also get the edits, new versions, box files and deletes.
 */
export function BoxPage() {
  const { user = '', name = '' } = useParams();
  const { api, signedIn } = useSession();
  const box = useQuery({ queryKey: queryKeys.box(user, name), queryFn: () => getBox(api, user, name) });
  const stats = useQuery({ queryKey: queryKeys.boxStats(user, name), queryFn: () => getBoxStats(api, user, name) });
  if (box.isLoading) return <Loading what="box" />;
  if (!box.data) return <ErrorNote error={box.error} />;
  const b = box.data;
  const manage = signedIn && stats.data?.may_manage === true;
  return (
    <>
      <Heading box={b} manage={manage} signedIn={signedIn} />
      <UpstreamNote upstream={stats.data?.upstream} />
      <BoxAbout box={b} manage={manage} />
      <UseIt box={b} />
      <Section title="Versions" actions={manage ? <NewVersionForm user={user} name={name} /> : undefined}>
        <ErrorNote error={stats.error} />
        <VersionList user={user} name={name} versions={b.versions} stats={stats.data} manage={manage} />
      </Section>
      {manage && (
        <Section title="Add a box file">
          <BoxFileForm fixed={{ owner: user, box: name }} />
        </Section>
      )}
    </>
  );
}
