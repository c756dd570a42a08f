import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { createProvider, type NewProvider } from '../api/boxes';
import { useSession } from '../api/session';
import { ErrorNote } from './ui';
import { UploadProgress, useUpload } from './use-upload';
import { UploadDrop } from './upload-drop';
import { queryKeys } from '../api/query-keys';
import { ARCHITECTURES, type Architecture } from '../../../daemon/src/contract/bodies/registry';
import { DIGEST_ALGORITHMS, type DigestAlgorithm } from '../../../daemon/src/contract/checksums';

/** Suggestions only: any provider name vagrant knows is accepted. */
const PROVIDERS = ['virtualbox', 'libvirt', 'vmware_desktop', 'hyperv', 'parallels', 'qemu', 'docker'];

interface Draft {
  name: string;
  architecture: Architecture;
  source: 'url' | 'upload';
  url: string;
  checksum: string;
  checksum_type: DigestAlgorithm;
}
const EMPTY: Draft = {
  name: 'virtualbox',
  architecture: 'amd64',
  // A file uploaded here is what most labs add; an external URL is the other way.
  source: 'upload',
  url: '',
  checksum: '',
  checksum_type: 'sha256',
};

function toProvider(d: Draft): NewProvider {
  const p: NewProvider = { name: d.name, architecture: d.architecture };
  if (d.source === 'url') {
    p.url = d.url;
    if (d.checksum) Object.assign(p, { checksum: d.checksum.trim(), checksum_type: d.checksum_type });
  }
  return p;
}

type Setter = (patch: Partial<Draft>) => void;

function SourceFields({
  d,
  set,
  file,
  onFile,
  uploading,
}: {
  d: Draft;
  set: Setter;
  file: File | null;
  onFile: (f: File | null) => void;
  uploading: boolean;
}) {
  if (d.source === 'upload') return <UploadDrop file={file} onFile={onFile} disabled={uploading} />;
  return (
    <>
      <label className="wide">
        URL
        <input
          name="url"
          type="url"
          value={d.url}
          onChange={(e) => set({ url: e.target.value })}
          required
          placeholder="https://…/virtualbox.box"
        />
      </label>
      <label>
        Checksum type
        <select
          name="checksum_type"
          value={d.checksum_type}
          onChange={(e) => set({ checksum_type: e.target.value as DigestAlgorithm })}
        >
          {DIGEST_ALGORITHMS.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      <label className="wide">
        Checksum (optional)
        <input
          name="checksum"
          value={d.checksum}
          onChange={(e) => set({ checksum: e.target.value })}
          pattern="[0-9a-fA-F]+"
        />
      </label>
    </>
  );
}

/** `locked` once the provider exists (its upload failed): only the file can still change. */
function ProviderFields({ d, set, locked }: { d: Draft; set: Setter; locked: boolean }) {
  return (
    <>
      <label>
        Provider
        <input
          name="provider"
          list="providers"
          value={d.name}
          onChange={(e) => set({ name: e.target.value })}
          required
          disabled={locked}
        />
      </label>
      <datalist id="providers">
        {PROVIDERS.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
      <label>
        Architecture
        <select
          name="architecture"
          value={d.architecture}
          onChange={(e) => set({ architecture: e.target.value as Architecture })}
          disabled={locked}
        >
          {ARCHITECTURES.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
      </label>
      <fieldset disabled={locked}>
        <legend>The box file</legend>
        <label className="check">
          <input
            type="radio"
            name="source"
            checked={d.source === 'upload'}
            onChange={() => set({ source: 'upload' })}
          />{' '}
          Upload a .box file
        </label>
        <label className="check">
          <input type="radio" name="source" checked={d.source === 'url'} onChange={() => set({ source: 'url' })} />{' '}
          External URL
        </label>
      </fieldset>
    </>
  );
}

/**
 * Adds a provider that points at an external URL, or creates one and uploads a box file to it
 * (dropped or chosen). Cancel aborts a running upload; after a failed or cancelled one the provider
 * exists and waits for its file, and "Retry upload" sends it again with a new upload URL.
 */
export function ProviderForm({ user, name, version }: { user: string; name: string; version: string }) {
  const { api } = useSession();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [d, setD] = useState<Draft>(EMPTY);
  const [file, setFile] = useState<File | null>(null);
  const [created, setCreated] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const up = useUpload();
  const set: Setter = (patch) => setD({ ...d, ...patch });
  const done = () => {
    setD(EMPTY);
    setFile(null);
    setCreated(false);
    setError(null);
    setOpen(false);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    if (d.source === 'upload' && !file) return setError('Choose or drop a .box file to upload.');
    if (!created) {
      try {
        await createProvider(api, user, name, version, toProvider(d));
      } catch (err) {
        return setError(err);
      }
      await qc.invalidateQueries({ queryKey: queryKeys.box(user, name) });
    }
    if (d.source === 'upload' && file) {
      // From here the provider exists: a failed upload leaves it waiting for its file (its row offers the upload too).
      setCreated(true);
      if (!(await up.upload({ user, name, version, provider: d.name, architecture: d.architecture }, file))) return;
    }
    done();
  };

  if (!open)
    return (
      <button type="button" className="small" onClick={() => setOpen(true)}>
        Add provider
      </button>
    );
  const label =
    d.source === 'url' ? 'Add provider' : up.uploading ? 'Uploading…' : created ? 'Retry upload' : 'Create and upload';
  return (
    <form className="provider-form" onSubmit={(e) => void submit(e)} aria-label={`Add provider to ${version}`}>
      <ProviderFields d={d} set={set} locked={created} />
      <SourceFields d={d} set={set} file={file} onFile={setFile} uploading={up.uploading} />
      <UploadProgress meter={up.meter} />
      {up.cancelled && (
        <p className="muted" role="status">
          Upload cancelled: the provider waits for its file. Retry, or upload it later from its row.
        </p>
      )}
      <ErrorNote error={error ?? up.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={up.uploading}>
          {label}
        </button>
        {up.uploading ? (
          <button type="button" className="danger" onClick={up.cancel}>
            Cancel upload
          </button>
        ) : (
          <button type="button" className="link" onClick={done}>
            {created ? 'Close' : 'Cancel'}
          </button>
        )}
      </div>
    </form>
  );
}
