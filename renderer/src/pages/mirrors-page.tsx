import { Link } from 'react-router-dom';
import { CachedBoxes } from '../components/mirror/cached-boxes';
import { NewMirrorForm } from '../components/mirror/mirror-form';
import { MirrorList } from '../components/mirror/mirror-list';
import { Upstreams } from '../components/mirror/upstreams';
import { Section } from '../components/ui';
import { OfflineNote } from '../components/mirror/offline-settings';
import { FolderTransfer } from '../components/mirror/folder-transfer';
import { ImportDrop } from '../components/mirror/import-drop';

/**
 * Upstreams, mirrors with their jobs and schedules, what the pull-through cache holds, folder import and export, and
 * many .box files imported at once (one file is added on the Add a box file page).
 */
export function MirrorsPage() {
  return (
    <>
      <div className="page-head">
        <h1>Mirrors</h1>
        <Link className="button" to="/mirrors/move">
          Move from HCP Vagrant
        </Link>
      </div>
      <OfflineNote />
      <Upstreams />
      <Section title="Mirrors">
        <MirrorList />
        <NewMirrorForm />
      </Section>
      <CachedBoxes />
      <FolderTransfer />
      <Section title="Import .box files">
        <ImportDrop />
      </Section>
    </>
  );
}
