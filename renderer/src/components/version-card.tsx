import { useQueryClient } from '@tanstack/react-query';
import { deleteVersion, setVersionStatus, updateVersion } from '../api/boxes';
import { useSession } from '../api/session';
import { VERSION_STATUS_WORDS, type VersionJson } from '../../../daemon/src/contract/wire/registry';
import type { VersionStatsJson } from '../../../daemon/src/contract/wire/box-stats';
import { ErrorNote, StatusBadge, confirmed, formatTime, useAction } from './ui';
import { ProviderForm } from './provider-form';
import { queryKeys, boxViews } from '../api/query-keys';
import { Markdown } from './markdown';
import { TextEdit } from './box/text-edit';
import { ProviderRow } from './box/provider-row';
import { plural } from './box/counts';
import { NOTES_EDITED_HERE } from './box/upstream-note';
import { CardTable } from './card-table';

interface VersionCardProps {
  user: string;
  name: string;
  version: VersionJson;
  /** Sizes and downloads of this version, once the box's stats are in. */
  stats?: VersionStatsJson;
  /** The caller may change the box: release, revoke, delete, edit, add providers. */
  manage: boolean;
}

/** Release, revoke and delete, for those who may. */
function VersionActions({ user, name, version }: { user: string; name: string; version: VersionJson }) {
  const { api } = useSession();
  const keys = boxViews(user, name);
  const status = useAction(
    (action: 'release' | 'revoke') => setVersionStatus(api, user, name, version.version, action),
    keys,
  );
  const remove = useAction(() => deleteVersion(api, user, name, version.version), keys);
  return (
    <>
      {version.status === 'unreleased' && (
        <button type="button" className="primary small" onClick={() => status.mutate('release')}>
          Release
        </button>
      )}
      {version.status === 'active' && (
        <button
          type="button"
          className="small"
          onClick={() => confirmed(`Revoke ${version.version}`) && status.mutate('revoke')}
        >
          Revoke
        </button>
      )}
      <button
        type="button"
        className="danger small"
        onClick={() => confirmed(`Delete version ${version.version}`) && remove.mutate(undefined)}
      >
        Delete
      </button>
      <ErrorNote error={status.error ?? remove.error} />
    </>
  );
}

/** A version: status, downloads, its description (Markdown), providers with size, downloads and checksum. */
export function VersionCard({ user, name, version, stats, manage }: VersionCardProps) {
  const { api } = useSession();
  const qc = useQueryClient();
  const saveDescription = async (description: string) => {
    await updateVersion(api, user, name, version.version, { description });
    await qc.invalidateQueries({ queryKey: queryKeys.box(user, name) });
  };
  const providerStats = (p: { name: string; architecture: string }) =>
    stats?.providers.find((s) => s.name === p.name && s.architecture === p.architecture);
  return (
    <article className="version" aria-label={`Version ${version.version}`}>
      <header>
        <h3>{version.version}</h3>
        <StatusBadge status={version.status} label={VERSION_STATUS_WORDS[version.status]} />
        <span className="muted">{formatTime(version.created_at)}</span>
        {stats && <span className="muted">{plural(stats.downloads, 'download')}</span>}
        {stats?.upstream === 'edited' && (
          <span className="badge" title={NOTES_EDITED_HERE}>
            notes edited here
          </span>
        )}
        <span className="spacer" />
        {manage && <VersionActions user={user} name={name} version={version} />}
      </header>
      <Markdown source={version.description_markdown} />
      {manage && (
        <TextEdit
          label={`Description of ${version.version}`}
          value={version.description_markdown}
          multiline
          save={saveDescription}
        />
      )}
      {version.providers.length > 0 && (
        <CardTable
          label={`Providers of ${version.version}`}
          className="providers"
          columns={[
            'Provider',
            'Architecture',
            'Size',
            'Downloads',
            'File',
            'Checksum',
            'Download',
            manage && 'Change',
          ]}
        >
          {version.providers.map((p) => (
            <ProviderRow
              key={`${p.name}/${p.architecture}`}
              user={user}
              name={name}
              version={version.version}
              provider={p}
              stats={providerStats(p)}
              manage={manage}
            />
          ))}
        </CardTable>
      )}
      {manage && <ProviderForm user={user} name={name} version={version.version} />}
    </article>
  );
}
