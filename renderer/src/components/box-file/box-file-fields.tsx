import { useId } from 'react';
import { z } from 'zod';
import { useNamespaces } from '../../api/use-namespaces';
import {
  ARCHITECTURES,
  ArchitectureName,
  CreateBox,
  CreateProvider,
  CreateVersion,
  type Architecture,
} from '../../../../daemon/src/contract/bodies/registry';
import { VERSION_STATUS_WORDS } from '../../../../daemon/src/contract/wire/registry';
import { hintOf } from '../form-issues';
import { Field } from '../form-rules';
import type { BoxFileDraft } from './use-box-file';

/** The contract's rules for what the form sends, under the form's own field names. */
export const BoxFileBody = z.object({
  box: CreateBox.shape.name,
  version: CreateVersion.shape.version,
  provider: CreateProvider.shape.name,
  architecture: ArchitectureName,
});

/** Suggestions only: any provider name vagrant knows is accepted. */
export const PROVIDERS = ['virtualbox', 'libvirt', 'vmware_desktop', 'hyperv', 'parallels', 'qemu', 'docker'];

/** What the form places: the owner, box and version given by where it is opened are shown, not asked. */
export interface Fixed {
  owner?: string;
  box?: string;
  version?: string;
}

type Issues = Partial<Record<keyof BoxFileDraft | 'file', string>>;
type Set = (patch: Partial<BoxFileDraft>) => void;

/** Owner, box and version, each only when where the form was opened does not already say. */
function WhereFields({ d, set, fixed, issues }: { d: BoxFileDraft; set: Set; fixed: Fixed; issues: Issues }) {
  const ns = useNamespaces();
  return (
    <>
      {fixed.owner === undefined && (
        <Field label="Owner" hint="You, or an organization you belong to: its members share the box.">
          {(c) => (
            <select {...c} name="owner" value={d.owner} onChange={(e) => set({ owner: e.target.value })} required>
              {ns.names.map((n) => (
                <option key={n}>{n}</option>
              ))}
            </select>
          )}
        </Field>
      )}
      {fixed.box === undefined && (
        <Field label="Box name" hint={hintOf(CreateBox.shape.name)} issue={issues.box}>
          {(c) => <input {...c} name="box" value={d.box} onChange={(e) => set({ box: e.target.value })} />}
        </Field>
      )}
      {fixed.version === undefined && (
        <Field label="Version" hint={hintOf(CreateVersion.shape.version)} issue={issues.version}>
          {(c) => <input {...c} name="version" value={d.version} onChange={(e) => set({ version: e.target.value })} />}
        </Field>
      )}
    </>
  );
}

type What = Pick<BoxFileDraft, 'provider' | 'architecture'>;

/**
 * Provider and architecture: filled from the file and editable (a refused value from the file says why here), or
 * typed for a file at an external URL.
 */
export function WhatFields({ d, set, issues = {} }: { d: What; set: (patch: Partial<What>) => void; issues?: Issues }) {
  const providers = useId();
  return (
    <>
      <Field label="Provider" hint={hintOf(CreateProvider.shape.name)} issue={issues.provider}>
        {(c) => (
          <input
            {...c}
            name="provider"
            list={providers}
            value={d.provider}
            onChange={(e) => set({ provider: e.target.value })}
          />
        )}
      </Field>
      <datalist id={providers}>
        {PROVIDERS.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
      <Field label="Architecture" hint={hintOf(ArchitectureName)} issue={issues.architecture}>
        {(c) => (
          <select
            {...c}
            name="architecture"
            value={d.architecture}
            onChange={(e) => set({ architecture: e.target.value as Architecture })}
          >
            <option value="">choose…</option>
            {ARCHITECTURES.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        )}
      </Field>
    </>
  );
}

/** The box, version and file the upload will make, as it will be named, updated as the fields change. */
function Preview({ d }: { d: BoxFileDraft }) {
  const tag = `${d.owner || 'OWNER'}/${d.box || 'NAME'}`;
  const file = `${d.provider || 'PROVIDER'} for ${d.architecture || 'ARCHITECTURE'}`;
  return (
    <p className="box-file-preview">
      Will add:{' '}
      <output aria-label="What the upload makes">
        <span className="mono">{tag}</span> version <span className="mono">{d.version || 'VERSION'}</span>, {file},{' '}
        {VERSION_STATUS_WORDS[d.release ? 'active' : 'unreleased']}
      </output>
      . <code>vagrant box add {tag}</code> finds it once it is released.
    </p>
  );
}

/** What the file is (read from it), where it goes (what is not fixed), whether to release it, and the preview. */
export function BoxFileFields({ d, set, fixed, issues }: { d: BoxFileDraft; set: Set; fixed: Fixed; issues: Issues }) {
  return (
    <>
      <WhatFields d={d} set={set} issues={issues} />
      <WhereFields d={d} set={set} fixed={fixed} issues={issues} />
      <label className="check">
        <input
          type="checkbox"
          name="release"
          checked={d.release}
          onChange={(e) => set({ release: e.target.checked })}
        />{' '}
        Release the version once the file is in (vagrant finds only released versions)
      </label>
      {fixed.box === undefined && (
        <label className="check">
          <input
            type="checkbox"
            name="private"
            checked={d.isPrivate}
            onChange={(e) => set({ isPrivate: e.target.checked })}
          />{' '}
          Private, if the box is new (only its owner's members can see it)
        </label>
      )}
      <Preview d={d} />
    </>
  );
}
