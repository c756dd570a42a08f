import { useEffect, useState } from 'react';
import { readBoxFile } from '../../api/box-file';
import type { Architecture } from '../../../../daemon/src/contract/bodies/registry';
import {
  architectureOf,
  architectureRefusal,
  providerRefusal,
  UNSTATED_ARCHITECTURE,
} from '../../../../daemon/src/contract/box-metadata';

/** What the form will send: where the file goes and what it is. `architecture` is '' until one is chosen. */
export interface BoxFileDraft {
  owner: string;
  box: string;
  version: string;
  provider: string;
  architecture: Architecture | '';
  release: boolean;
  isPrivate: boolean;
}

/** Where reading the chosen file stands; `said` is what the form shows the file said. */
export type FileReading =
  | { state: 'none' }
  | { state: 'reading' }
  | { state: 'read'; said: string }
  | { state: 'failed'; error: string };

/** A field the file filled with a value the contract refuses: its words, until the field is changed. */
export type FromFile = Partial<Record<'provider' | 'architecture', string>>;

/** A box name from a file's name (`debian-12.box` → `debian-12`), for a box not named yet. */
export const boxNameOf = (fileName: string): string =>
  fileName
    .replace(/\.box$/i, '')
    .replace(/[^A-Za-z0-9_.-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);

/**
 * Reads a chosen file's metadata.json (api/box-file.ts, the contract's rules) and fills provider and
 * architecture from it, which stay editable; a value the contract refuses leaves its field empty with
 * the reason beside it. A file chosen while another is read wins: the older reading is dropped.
 */
export function useBoxFileReading(file: File | null, fill: (patch: Partial<BoxFileDraft>, refused: FromFile) => void) {
  const [reading, setReading] = useState<FileReading>({ state: 'none' });
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new file is read once; `fill` changes with every draft.
  useEffect(() => {
    if (!file) return setReading({ state: 'none' });
    let current = true;
    setReading({ state: 'reading' });
    readBoxFile(file).then(
      (meta) => {
        if (!current) return;
        const refused: FromFile = {};
        const provider = meta.provider === undefined ? null : providerRefusal(meta.provider);
        if (provider) refused.provider = provider;
        const architecture = meta.architecture === undefined ? null : architectureRefusal(meta.architecture);
        if (architecture) refused.architecture = architecture;
        fill(
          {
            provider: meta.provider && !provider ? meta.provider : '',
            architecture: architecture ? '' : architectureOf(meta),
          },
          refused,
        );
        const stated =
          meta.architecture === undefined ? `names no architecture (${UNSTATED_ARCHITECTURE} is assumed)` : '';
        const said = [meta.provider === undefined ? 'names no provider' : '', stated].filter(Boolean);
        setReading({ state: 'read', said: said.length ? `Its metadata.json ${said.join(' and ')}.` : '' });
      },
      (e: unknown) => {
        if (!current) return;
        fill({ provider: '', architecture: '' }, {});
        setReading({ state: 'failed', error: e instanceof Error ? e.message : String(e) });
      },
    );
    return () => {
      current = false;
    };
  }, [file]);
  return reading;
}
