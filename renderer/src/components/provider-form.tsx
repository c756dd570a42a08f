import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { createProvider, type NewProvider } from '../api/boxes';
import { useSession } from '../api/session';
import { ErrorNote } from './ui';
import { UploadProgress, useUpload } from './use-upload';
import { queryKeys } from '../api/query-keys';
import { ARCHITECTURES, type Architecture } from '../../../daemon/src/contract/bodies-registry';
import { DIGEST_ALGORITHMS, type DigestAlgorithm } from '../../../daemon/src/contract/checksums';

/** Suggestions only: any provider name vagrant knows is accepted. */
const PROVIDERS = ['virtualbox', 'libvirt', 'vmware_desktop', 'hyperv', 'parallels', 'qemu', 'docker'];

interface Draft { name: string; architecture: Architecture; source: 'url' | 'upload'; url: string; checksum: string; checksum_type: DigestAlgorithm }
const EMPTY: Draft = { name: 'virtualbox', architecture: 'amd64', source: 'url', url: '', checksum: '', checksum_type: 'sha256' };

function toProvider(d: Draft): NewProvider {
  const p: NewProvider = { name: d.name, architecture: d.architecture };
  if (d.source === 'url') {
    p.url = d.url;
    if (d.checksum) Object.assign(p, { checksum: d.checksum.trim(), checksum_type: d.checksum_type });
  }
  return p;
}

type Setter = (patch: Partial<Draft>) => void;

function SourceFields({ d, set, onFile }: { d: Draft; set: Setter; onFile: (f: File | null) => void }) {
  if (d.source === 'upload') {
    return <label className="wide">Box file<input name="file" type="file" accept=".box,application/octet-stream" onChange={(e) => onFile(e.target.files?.[0] ?? null)} required /></label>;
  }
  return (
    <>
      <label className="wide">URL<input name="url" type="url" value={d.url} onChange={(e) => set({ url: e.target.value })} required placeholder="https://…/virtualbox.box" /></label>
      <label>Checksum type<select name="checksum_type" value={d.checksum_type} onChange={(e) => set({ checksum_type: e.target.value as DigestAlgorithm })}>{DIGEST_ALGORITHMS.map((t) => <option key={t}>{t}</option>)}</select></label>
      <label className="wide">Checksum (optional)<input name="checksum" value={d.checksum} onChange={(e) => set({ checksum: e.target.value })} pattern="[0-9a-fA-F]+" /></label>
    </>
  );
}

function ProviderFields({ d, set }: { d: Draft; set: Setter }) {
  return (
    <>
      <label>Provider<input name="provider" list="providers" value={d.name} onChange={(e) => set({ name: e.target.value })} required /></label>
      <datalist id="providers">{PROVIDERS.map((p) => <option key={p} value={p} />)}</datalist>
      <label>Architecture<select name="architecture" value={d.architecture} onChange={(e) => set({ architecture: e.target.value as Architecture })}>{ARCHITECTURES.map((a) => <option key={a}>{a}</option>)}</select></label>
      <fieldset>
        <label className="check"><input type="radio" name="source" checked={d.source === 'url'} onChange={() => set({ source: 'url' })} /> External URL</label>
        <label className="check"><input type="radio" name="source" checked={d.source === 'upload'} onChange={() => set({ source: 'upload' })} /> Upload a .box file</label>
      </fieldset>
    </>
  );
}

/** Adds a provider that points at an external URL, or creates one and uploads a box file to it. */
export function ProviderForm({ user, name, version }: { user: string; name: string; version: string }) {
  const { api } = useSession();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [d, setD] = useState<Draft>(EMPTY);
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<unknown>(null);
  const { upload, progress, error: uploadError } = useUpload();
  const set: Setter = (patch) => setD({ ...d, ...patch });
  const done = () => { setD(EMPTY); setFile(null); setOpen(false); };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await createProvider(api, user, name, version, toProvider(d));
    } catch (err) {
      return setError(err);
    }
    await qc.invalidateQueries({ queryKey: queryKeys.box(user, name) });
    // A failed upload leaves the provider waiting for its file; its row offers the upload again.
    if (d.source === 'upload' && file && !(await upload({ user, name, version, provider: d.name, architecture: d.architecture }, file))) return;
    done();
  };

  if (!open) return <button type="button" className="small" onClick={() => setOpen(true)}>Add provider</button>;
  return (
    <form className="provider-form" onSubmit={(e) => void submit(e)} aria-label={`Add provider to ${version}`}>
      <ProviderFields d={d} set={set} />
      <SourceFields d={d} set={set} onFile={setFile} />
      <UploadProgress progress={progress} />
      <ErrorNote error={error ?? uploadError} />
      <div className="row">
        <button type="submit" className="primary" disabled={progress !== null}>{d.source === 'upload' ? 'Create and upload' : 'Add provider'}</button>
        <button type="button" className="link" onClick={() => setOpen(false)}>Cancel</button>
      </div>
    </form>
  );
}
