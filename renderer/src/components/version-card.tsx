import { deleteProvider, deleteVersion, setVersionStatus, type ProviderRef } from '../api/boxes';
import { useSession } from '../api/session';
import type { ProviderJson, VersionJson } from '../../../daemon/src/contract/wire-registry';
import { ErrorNote, StatusBadge, confirmed, formatTime, useAction } from './ui';
import { ProviderForm } from './provider-form';
import { UploadProgress, useUpload } from './use-upload';
import { queryKeys, boxViews } from '../api/query-keys';

function ImageCell({ provider, refOf }: { provider: ProviderJson; refOf: ProviderRef }) {
  const { upload, progress, error } = useUpload();
  if (provider.original_url) return <a href={provider.original_url}>external URL</a>;
  // A provider without a URL is `hosted` from the start; the checksum the daemon computes shows the file arrived.
  if (provider.checksum) return <>uploaded</>;
  return (
    <div className="stack">
      <label className="upload-again">Waiting for a file: upload<input type="file" accept=".box,application/octet-stream" onChange={(e) => { const f = e.target.files?.[0]; if (f) void upload(refOf, f); }} /></label>
      <UploadProgress progress={progress} />
      <ErrorNote error={error} />
    </div>
  );
}

// The box answer carries each provider exactly as `GET …/provider/…` does (the same serializer),
// checksum included: no second request per provider.
function ProviderRow({ user, name, version, provider: p }: { user: string; name: string; version: string; provider: ProviderJson }) {
  const { api } = useSession();
  const ref: ProviderRef = { user, name, version, provider: p.name, architecture: p.architecture };
  const remove = useAction(() => deleteProvider(api, ref), [queryKeys.box(user, name)]);
  return (
    <tr>
      <td>{p.name}</td>
      <td>{p.architecture ?? '—'}{p.default_architecture ? ' (default)' : ''}</td>
      <td><ImageCell provider={p} refOf={ref} /></td>
      <td className="mono">{p.checksum ? `${p.checksum_type ?? ''}:${p.checksum}` : '—'}</td>
      <td>{p.download_url && (p.original_url || p.checksum) ? <a href={p.download_url}>download</a> : null}</td>
      <td>
        <button type="button" className="danger small" onClick={() => confirmed(`Delete provider ${p.name}${p.architecture ? ` (${p.architecture})` : ''}`) && remove.mutate(undefined)}>Delete</button>
        <ErrorNote error={remove.error} />
      </td>
    </tr>
  );
}

/** A version: status, release/revoke/delete, providers, and the add-provider form. */
export function VersionCard({ user, name, version }: { user: string; name: string; version: VersionJson }) {
  const { api } = useSession();
  const keys = boxViews(user, name);
  const status = useAction((action: 'release' | 'revoke') => setVersionStatus(api, user, name, version.version, action), keys);
  const remove = useAction(() => deleteVersion(api, user, name, version.version), keys);
  const providers = version.providers;
  return (
    <article className="version" aria-label={`Version ${version.version}`}>
      <header>
        <h3>{version.version}</h3>
        <StatusBadge status={version.status} />
        <span className="muted">{formatTime(version.created_at)}</span>
        <span className="spacer" />
        {version.status === 'unreleased' && <button type="button" className="primary small" onClick={() => status.mutate('release')}>Release</button>}
        {version.status === 'active' && <button type="button" className="small" onClick={() => confirmed(`Revoke ${version.version}`) && status.mutate('revoke')}>Revoke</button>}
        <button type="button" className="danger small" onClick={() => confirmed(`Delete version ${version.version}`) && remove.mutate(undefined)}>Delete</button>
      </header>
      {version.description_markdown && <p>{version.description_markdown}</p>}
      <ErrorNote error={status.error ?? remove.error} />
      {providers.length > 0 && (
        <table>
          <thead><tr><th>Provider</th><th>Architecture</th><th>Image</th><th>Checksum</th><th /><th /></tr></thead>
          <tbody>{providers.map((p) => <ProviderRow key={`${p.name}/${p.architecture ?? ''}`} user={user} name={name} version={version.version} provider={p} />)}</tbody>
        </table>
      )}
      <ProviderForm user={user} name={name} version={version.version} />
    </article>
  );
}
