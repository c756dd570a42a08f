import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { createProvider, prepareUpload, putFile, type NewProvider } from '../api/boxes';
import { useSession } from '../api/session';
import { ErrorNote } from './ui';

const PROVIDERS = ['virtualbox', 'libvirt', 'vmware_desktop', 'hyperv', 'parallels', 'qemu', 'docker'];
const ARCHITECTURES = ['amd64', 'arm64', 'i386', 'arm', 'ppc64le', 's390x', 'unknown'];
const CHECKSUM_TYPES = ['sha256', 'sha512', 'sha384', 'sha1', 'md5'];

interface Draft { name: string; architecture: string; source: 'url' | 'upload'; url: string; checksum: string; checksum_type: string }
const EMPTY: Draft = { name: 'virtualbox', architecture: 'amd64', source: 'url', url: '', checksum: '', checksum_type: 'sha256' };

function toProvider(d: Draft): NewProvider {
  const p: NewProvider = { name: d.name, architecture: d.architecture };
  if (d.source === 'url') {
    p.url = d.url;
    if (d.checksum) Object.assign(p, { checksum: d.checksum.trim(), checksum_type: d.checksum_type });
  }
  return p;
}

/** Adds a provider that points at an external URL, or creates one and uploads a box file to it. */
export function ProviderForm({ user, name, version }: { user: string; name: string; version: string }) {
  const { api } = useSession();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [d, setD] = useState<Draft>(EMPTY);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const set = (k: keyof Draft) => (e: { target: { value: string } }) => setD({ ...d, [k]: e.target.value });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await createProvider(api, user, name, version, toProvider(d));
      if (d.source === 'upload' && file) {
        setProgress(0);
        const { upload_path } = await prepareUpload(api, user, name, version, d.name);
        await putFile(upload_path, file, setProgress);
      }
      setD(EMPTY);
      setFile(null);
      setOpen(false);
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
      await qc.invalidateQueries({ queryKey: ['box', user, name] });
    }
  };

  if (!open) return <button type="button" className="small" onClick={() => setOpen(true)}>Add provider</button>;
  return (
    <form className="provider-form" onSubmit={(e) => void submit(e)} aria-label={`Add provider to ${version}`}>
      <label>Provider<input name="provider" list="providers" value={d.name} onChange={set('name')} required /></label>
      <datalist id="providers">{PROVIDERS.map((p) => <option key={p} value={p} />)}</datalist>
      <label>Architecture<select name="architecture" value={d.architecture} onChange={set('architecture')}>{ARCHITECTURES.map((a) => <option key={a}>{a}</option>)}</select></label>
      <fieldset>
        <label className="check"><input type="radio" name="source" checked={d.source === 'url'} onChange={() => setD({ ...d, source: 'url' })} /> External URL</label>
        <label className="check"><input type="radio" name="source" checked={d.source === 'upload'} onChange={() => setD({ ...d, source: 'upload' })} /> Upload a .box file</label>
      </fieldset>
      {d.source === 'url' ? (
        <>
          <label className="wide">URL<input name="url" type="url" value={d.url} onChange={set('url')} required placeholder="https://…/virtualbox.box" /></label>
          <label>Checksum type<select name="checksum_type" value={d.checksum_type} onChange={set('checksum_type')}>{CHECKSUM_TYPES.map((t) => <option key={t}>{t}</option>)}</select></label>
          <label className="wide">Checksum (optional)<input name="checksum" value={d.checksum} onChange={set('checksum')} pattern="[0-9a-fA-F]+" /></label>
        </>
      ) : (
        <label className="wide">Box file<input name="file" type="file" accept=".box,application/octet-stream" onChange={(e) => setFile(e.target.files?.[0] ?? null)} required /></label>
      )}
      {progress !== null && <progress max={1} value={progress} aria-label="Upload progress">{Math.round(progress * 100)}%</progress>}
      {progress !== null && <span className="muted">{Math.round(progress * 100)}%</span>}
      <ErrorNote error={error} />
      <div className="row">
        <button type="submit" className="primary" disabled={progress !== null}>{d.source === 'upload' ? 'Create and upload' : 'Add provider'}</button>
        <button type="button" className="link" onClick={() => setOpen(false)}>Cancel</button>
      </div>
    </form>
  );
}
