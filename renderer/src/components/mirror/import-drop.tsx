import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { importBoxFile } from '../../api/mirrors';
import type { ImportResultJson } from '../../../../daemon/src/contract/wire/mirror';
import { useNamespaces } from '../../api/use-namespaces';
import { formatBytes } from '../format';
import { ErrorNote } from '../ui';
import { UploadProgress } from '../use-upload';
import { boxViews } from '../../api/query-keys';
import { VERSION_STATUS_WORDS } from '../../../../daemon/src/contract/wire/registry';

interface Item {
  /** Which file this is among those added (two may have one name). */
  id: number;
  file: File;
  progress: number | null;
  result?: ImportResultJson;
  error?: unknown;
}

const isBoxFile = (f: File) => f.name.toLowerCase().endsWith('.box');

/** The files to import and their state; `run` PUTs them one after another, each with its own bar. */
function useImports(onDone: () => Promise<void>) {
  const [items, setItems] = useState<Item[]>([]);
  const [running, setRunning] = useState(false);
  const added = useRef(0);
  const patch = (i: number, p: Partial<Item>) => setItems((xs) => xs.map((x, j) => (j === i ? { ...x, ...p } : x)));
  const add = (files: File[]) => {
    const fresh = files.map((file) => ({ id: added.current++, file, progress: null }));
    setItems((xs) => [...xs.filter((x) => !x.result), ...fresh]);
  };
  const run = async (user: string, box: string, version: string, release: boolean) => {
    setRunning(true);
    for (const [i, item] of items.entries()) {
      if (item.result) continue;
      patch(i, { progress: 0, error: undefined });
      try {
        const result = await importBoxFile({ user, box, version, release }, item.file, ({ loaded, total }) =>
          patch(i, { progress: total > 0 ? loaded / total : 0 }),
        );
        patch(i, { progress: null, result });
      } catch (error) {
        patch(i, { progress: null, error });
      }
    }
    setRunning(false);
    await onDone();
  };
  return { items, add, run, running, clear: () => setItems([]) };
}

function ItemRow({ item }: { item: Item }) {
  const r = item.result;
  return (
    <li aria-label={`Import ${item.file.name}`}>
      <span className="mono">{item.file.name}</span> <span className="muted">({formatBytes(item.file.size)})</span>
      {r && (
        <span>
          {' '}
          → imported {r.provider}
          {r.architecture ? `/${r.architecture}` : ''} into {r.box} {r.version}
          {r.released ? ` (${VERSION_STATUS_WORDS.active})` : ''} <span className="mono">sha256:{r.sha256}</span>
        </span>
      )}
      <UploadProgress progress={item.progress} />
      <ErrorNote error={item.error} />
    </li>
  );
}

/** Where the box goes: its owner and name. */
function BoxFields({
  owner,
  setOwner,
  box,
  setBox,
}: {
  owner: string;
  setOwner: (s: string) => void;
  box: string;
  setBox: (s: string) => void;
}) {
  const ns = useNamespaces();
  return (
    <>
      <label>
        Owner
        <select name="import_owner" value={owner} onChange={(e) => setOwner(e.target.value)} required>
          <option value="" disabled>
            choose…
          </option>
          {ns.names.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      </label>
      <label>
        Box name
        <input
          name="import_box"
          value={box}
          onChange={(e) => setBox(e.target.value)}
          required
          pattern="[A-Za-z0-9._\-]+"
        />
      </label>
    </>
  );
}

/**
 * A drop zone for `.box` files: each is PUT to the import endpoint, which reads its provider and
 * architecture from the file's metadata.json, and creates the box and version when missing.
 */
export function ImportDrop() {
  const qc = useQueryClient();
  const [owner, setOwner] = useState('');
  const [box, setBox] = useState('');
  const [version, setVersion] = useState('');
  const [release, setRelease] = useState(true);
  const [dragging, setDragging] = useState(false);
  const [refused, setRefused] = useState<string | null>(null);
  const target = { user: owner, box };
  const imports = useImports(async () => {
    for (const queryKey of boxViews(target.user, target.box)) await qc.invalidateQueries({ queryKey });
  });
  const take = (files: File[]) => {
    if (imports.running) return;
    const boxes = files.filter(isBoxFile);
    setRefused(
      boxes.length < files.length
        ? `Only .box files can be imported: ${files
            .filter((f) => !isBoxFile(f))
            .map((f) => f.name)
            .join(', ')} left out.`
        : null,
    );
    if (boxes.length) imports.add(boxes);
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    take([...e.dataTransfer.files]);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void imports.run(target.user, target.box, version.trim(), release);
  };
  const pending = imports.items.filter((x) => !x.result).length;
  return (
    <form className="stack-wide" onSubmit={submit} aria-label="Import box files">
      {/* A group of the file input (the way in for the keyboard) and the area files may be dropped on. */}
      <fieldset
        className={`drop-zone${dragging ? ' dragging' : ''}`}
        aria-label="Drop .box files here"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <p>
          Drop one or more <code>.box</code> files here, or{' '}
          <label className="inline-label">
            choose files
            <input
              type="file"
              multiple
              accept=".box"
              aria-label="Choose .box files"
              onChange={(e) => {
                take([...(e.target.files ?? [])]);
                e.target.value = '';
              }}
            />
          </label>
          .
        </p>
        <p className="muted">Provider and architecture are read from each file's metadata.json.</p>
      </fieldset>
      <ErrorNote error={refused} />
      {imports.items.length > 0 && (
        <ul className="plain">
          {imports.items.map((item) => (
            <ItemRow key={item.id} item={item} />
          ))}
        </ul>
      )}
      <div className="row">
        <BoxFields owner={owner} setOwner={setOwner} box={box} setBox={setBox} />
        <input
          name="import_version"
          aria-label="Import version"
          placeholder="Into version, e.g. 2.0.0"
          value={version}
          onChange={(e) => setVersion(e.target.value)}
          required
        />
        <label className="check">
          <input type="checkbox" checked={release} onChange={(e) => setRelease(e.target.checked)} /> Release it
        </label>
        <button type="submit" className="primary" disabled={imports.running || pending === 0}>
          Import {pending || ''} file{pending === 1 ? '' : 's'}
        </button>
        {imports.items.length > 0 && !imports.running && (
          <button type="button" className="link" onClick={imports.clear}>
            Clear
          </button>
        )}
      </div>
    </form>
  );
}
