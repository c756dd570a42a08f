import { CachedBoxes } from '../components/cached-boxes';
import { NewMirrorForm } from '../components/mirror-form';
import { MirrorList } from '../components/mirror-list';
import { Upstreams } from '../components/upstreams';
import { Section } from '../components/ui';
import { OfflineNote } from '../components/offline-settings';

/** Upstreams, mirrors with their jobs, and what the pull-through cache holds. */
export function MirrorsPage() {
  return (
    <>
      <div className="page-head"><h1>Mirrors</h1></div>
      <OfflineNote />
      <Upstreams />
      <Section title="Mirrors">
        <MirrorList />
        <NewMirrorForm />
      </Section>
      <CachedBoxes />
    </>
  );
}
