import { useState, type FormEvent } from 'react';
import { createProvider, type NewProvider } from '../api/boxes';
import { useSession } from '../api/session';
import { ErrorNote, useAction } from './ui';
import { BoxFileForm } from './box-file/box-file-form';
import { WhatFields } from './box-file/box-file-fields';
import { queryKeys } from '../api/query-keys';
import type { Architecture } from '../../../daemon/src/contract/bodies/registry';
import { UNSTATED_ARCHITECTURE } from '../../../daemon/src/contract/box-metadata';
import { DIGEST_ALGORITHMS, type DigestAlgorithm } from '../../../daemon/src/contract/checksums';

interface Draft {
  name: string;
  architecture: Architecture | '';
  url: string;
  checksum: string;
  checksum_type: DigestAlgorithm;
}
const EMPTY: Draft = {
  name: 'virtualbox',
  architecture: UNSTATED_ARCHITECTURE,
  url: '',
  checksum: '',
  checksum_type: 'sha256',
};

function toProvider(d: Draft): NewProvider {
  const p: NewProvider = { name: d.name, url: d.url, ...(d.architecture ? { architecture: d.architecture } : {}) };
  if (d.checksum) Object.assign(p, { checksum: d.checksum.trim(), checksum_type: d.checksum_type });
  return p;
}

type Setter = (patch: Partial<Draft>) => void;

function UrlFields({ d, set }: { d: Draft; set: Setter }) {
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

/** A provider whose file stays at an external URL: vagrant downloads it from there. */
function UrlProviderForm({
  user,
  name,
  version,
  onDone,
}: {
  user: string;
  name: string;
  version: string;
  onDone: () => void;
}) {
  const { api } = useSession();
  const [d, setD] = useState<Draft>(EMPTY);
  const set: Setter = (patch) => setD({ ...d, ...patch });
  const add = useAction(
    () => createProvider(api, user, name, version, toProvider(d)),
    [queryKeys.box(user, name)],
    onDone,
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(undefined);
  };
  return (
    <form className="provider-form" onSubmit={submit} aria-label={`Add provider by URL to ${version}`}>
      <WhatFields
        d={{ provider: d.name, architecture: d.architecture }}
        set={({ provider, ...rest }) => set({ ...rest, ...(provider === undefined ? {} : { name: provider }) })}
      />
      <UrlFields d={d} set={set} />
      <ErrorNote error={add.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={add.isPending}>
          Add provider
        </button>
      </div>
    </form>
  );
}

/**
 * Adds a file to a version: uploaded, the one way a box file is added (BoxFileForm: provider and architecture read
 * from the file), or left at an external URL.
 */
export function ProviderForm({ user, name, version }: { user: string; name: string; version: string }) {
  const [open, setOpen] = useState(false);
  const [source, setSource] = useState<'upload' | 'url'>('upload');
  if (!open)
    return (
      <button type="button" className="small" onClick={() => setOpen(true)}>
        Add provider
      </button>
    );
  const close = () => setOpen(false);
  return (
    <section className="stack" aria-label={`Add provider to ${version}`}>
      <fieldset>
        <legend>The box file</legend>
        <label className="check">
          <input type="radio" name="source" checked={source === 'upload'} onChange={() => setSource('upload')} /> Upload
          a .box file
        </label>
        <label className="check">
          <input type="radio" name="source" checked={source === 'url'} onChange={() => setSource('url')} /> External URL
        </label>
      </fieldset>
      {source === 'upload' ? (
        <BoxFileForm fixed={{ owner: user, box: name, version }} onDone={close} />
      ) : (
        <UrlProviderForm user={user} name={name} version={version} onDone={close} />
      )}
      <button type="button" className="link" onClick={close}>
        Close
      </button>
    </section>
  );
}
