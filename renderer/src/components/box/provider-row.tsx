import { deleteProvider, type ProviderRef } from '../../api/boxes';
import { useSession } from '../../api/session';
import { queryKeys } from '../../api/query-keys';
import type { ProviderJson } from '../../../../daemon/src/contract/wire/registry';
import type { ProviderStatsJson } from '../../../../daemon/src/contract/wire/box-stats';
import { CopyField, ErrorNote, confirmed, useAction } from '../ui';
import { UploadProgress, useUpload } from '../use-upload';
import { UploadDrop } from '../upload-drop';
import { formatBytes } from '../format';

/** Where the file is: an external URL, stored here, or still to come (an upload here, for those who may). */
function FileCell({ provider, refOf, manage }: { provider: ProviderJson; refOf: ProviderRef; manage: boolean }) {
  const up = useUpload();
  if (provider.original_url)
    return (
      <a href={provider.original_url} rel="noopener noreferrer nofollow">
        external URL
      </a>
    );
  // A provider without a URL is `hosted` from the start; the checksum the daemon computes shows the file arrived.
  if (provider.checksum) return <>uploaded</>;
  if (!manage) return <span className="muted">no file yet</span>;
  // The same drop zone, bar, Cancel and Retry as the new-provider form (provider-form.tsx).
  return (
    <div className="stack">
      <span className="upload-again">Waiting for a file</span>
      <UploadDrop
        file={null}
        onFile={(f) => {
          if (f) void up.upload(refOf, f);
        }}
        disabled={up.uploading}
        label={`Box file for ${provider.name} (${provider.architecture})`}
      />
      <UploadProgress meter={up.meter} />
      <div className="row">
        {up.uploading && (
          <button type="button" className="danger" onClick={up.cancel}>
            Cancel upload
          </button>
        )}
        {up.canRetry && (
          <button type="button" onClick={() => void up.retry()}>
            Retry upload
          </button>
        )}
      </div>
      {up.cancelled && (
        <p className="muted" role="status">
          Upload cancelled: the provider still waits for its file.
        </p>
      )}
      <ErrorNote error={up.error} />
    </div>
  );
}

/**
 * The architecture as the API gives it. `unknown` is what a provider made without one is recorded
 * as (vagrant_cloud 3.0.5 sends none): vagrant uses it on any machine. The default entry is the
 * one vagrant picks among a provider's architectures when the machine's own has no entry.
 */
function Architecture({ provider: p }: { provider: ProviderJson }) {
  return (
    <>
      {p.architecture === 'unknown' ? (
        <span title="Created without an architecture: vagrant uses it on any machine">unknown</span>
      ) : (
        p.architecture
      )}
      {p.default_architecture && (
        <span
          className="badge badge-default"
          title={`What vagrant picks for ${p.name} when the machine's architecture has no entry of its own`}
        >
          default
        </span>
      )}
    </>
  );
}

// The box answer carries each provider exactly as `GET …/provider/…` does (the same serializer),
// checksum included: no second request per provider. Size and downloads come from the box's stats.
// Labels inside a row name the architecture only: the row's first cell names the provider.
export function ProviderRow({
  user,
  name,
  version,
  provider: p,
  stats,
  manage,
}: {
  user: string;
  name: string;
  version: string;
  provider: ProviderJson;
  stats: ProviderStatsJson | undefined;
  manage: boolean;
}) {
  const { api } = useSession();
  const ref: ProviderRef = { user, name, version, provider: p.name, architecture: p.architecture };
  const remove = useAction(() => deleteProvider(api, ref), [queryKeys.box(user, name)]);
  return (
    <tr>
      <td data-label="Provider">{p.name}</td>
      <td data-label="Architecture">
        <Architecture provider={p} />
      </td>
      <td data-label="Size">{formatBytes(stats?.size)}</td>
      <td data-label="Downloads">{stats ? stats.downloads.toLocaleString() : '—'}</td>
      <td data-label="File">
        <FileCell provider={p} refOf={ref} manage={manage} />
      </td>
      <td data-label="Checksum" className="checksum">
        {p.checksum ? (
          <CopyField label={`checksum (${p.architecture})`} value={`${p.checksum_type ?? ''}:${p.checksum}`} />
        ) : (
          '—'
        )}
      </td>
      <td>
        {p.download_url && (p.original_url || p.checksum) ? (
          <a href={p.download_url} aria-label={`download (${p.architecture})`}>
            download
          </a>
        ) : null}
      </td>
      {manage && (
        <td>
          <button
            type="button"
            className="danger small"
            onClick={() => confirmed(`Delete provider ${p.name} (${p.architecture})`) && remove.mutate(undefined)}
          >
            Delete
          </button>
          <ErrorNote error={remove.error} />
        </td>
      )}
    </tr>
  );
}
