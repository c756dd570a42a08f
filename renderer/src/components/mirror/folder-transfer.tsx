import { useRef, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { exportFolder, importFolder, splitList } from '../../api/mirrors';
import type { ExportLine } from '../../../../daemon/src/contract/wire/mirror-actions';
import { useSession } from '../../api/session';
import { formatBytes } from '../format';
import { ErrorNote, Section, useAction } from '../ui';
import { mirrorResults, queryKeys } from '../../api/query-keys';

/** An export folder on the daemon's machine, copied by mirror jobs (one per box) that show in the list above. */
function ImportFolderForm() {
  const { api } = useSession();
  const [path, setPath] = useState('');
  const start = useAction(() => importFolder(api, path.trim()), [queryKeys.mirrors, queryKeys.upstreams]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start.mutate(undefined);
  };
  return (
    <form className="provider-form" onSubmit={submit} aria-label="Import an export folder">
      <label className="wide">
        Export folder on the daemon's machine
        <input
          name="import_path"
          value={path}
          onChange={(e) => setPath(e.target.value)}
          required
          placeholder="/media/usb/boxes"
        />
      </label>
      <ErrorNote error={start.error} />
      {start.data && (
        <p className="muted" role="status">
          Importing {start.data.map((m) => m.source).join(', ')}: each is a mirror job above, with its progress.
        </p>
      )}
      <div className="row">
        <button type="submit" disabled={start.isPending}>
          Import folder
        </button>
      </div>
    </form>
  );
}

type Progress = Extract<ExportLine, { type: 'progress' }>;

/**
 * Boxes into a folder on the daemon's machine, with the progress the daemon streams; Stop ends it (running it again
 * resumes).
 */
function ExportFolderForm() {
  const qc = useQueryClient();
  const [d, setD] = useState({ boxes: '', path: '', latest: '' });
  const [progress, setProgress] = useState<Progress | null>(null);
  const [result, setResult] = useState<ExportLine | null>(null);
  const [error, setError] = useState<unknown>(null);
  const running = useRef<AbortController | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const stop = new AbortController();
    running.current = stop;
    setBusy(true);
    setError(null);
    setResult(null);
    setProgress(null);
    try {
      const req = { boxes: splitList(d.boxes), path: d.path.trim(), ...(d.latest ? { latest: Number(d.latest) } : {}) };
      setResult(
        await exportFolder(
          req,
          (line) => {
            if (line.type === 'progress') setProgress(line);
          },
          stop.signal,
        ),
      );
    } catch (err) {
      setError(stop.signal.aborted ? 'Export stopped. Export into the same folder again to resume.' : err);
    } finally {
      running.current = null;
      setBusy(false);
      for (const queryKey of mirrorResults) void qc.invalidateQueries({ queryKey });
    }
  };
  const fraction = progress && progress.bytes_total > 0 ? progress.bytes_done / progress.bytes_total : undefined;
  return (
    <form className="provider-form" onSubmit={(e) => void submit(e)} aria-label="Export to a folder">
      <label className="wide">
        Boxes
        <input
          name="export_boxes"
          value={d.boxes}
          onChange={(e) => setD({ ...d, boxes: e.target.value })}
          required
          placeholder="lab/web, bento/ubuntu-24.04"
        />
      </label>
      <label className="wide">
        Folder on the daemon's machine
        <input
          name="export_path"
          value={d.path}
          onChange={(e) => setD({ ...d, path: e.target.value })}
          required
          placeholder="/media/usb/boxes"
        />
      </label>
      <label>
        Latest versions
        <input
          name="export_latest"
          type="number"
          min={1}
          value={d.latest}
          onChange={(e) => setD({ ...d, latest: e.target.value })}
          placeholder="all released"
        />
      </label>
      {busy && (
        <div className="upload-progress" role="status">
          <progress max={1} value={fraction} aria-label="Export progress" />
          {progress && (
            <span className="muted">
              {formatBytes(progress.bytes_done)} of {formatBytes(progress.bytes_total)} · files {progress.files_done}/
              {progress.files_total} · {progress.file}
            </span>
          )}
        </div>
      )}
      {result?.type === 'done' && (
        <p role="status">
          Exported {result.files} file{result.files === 1 ? '' : 's'} ({formatBytes(result.bytes)}) to{' '}
          <span className="mono">{result.path}</span>.
        </p>
      )}
      {result?.type === 'failed' && (
        <p className="error" role="alert">
          {result.message}
        </p>
      )}
      <ErrorNote error={error} />
      <div className="row">
        <button type="submit" disabled={busy}>
          Export
        </button>
        {busy && (
          <button type="button" className="danger" onClick={() => running.current?.abort()}>
            Stop export
          </button>
        )}
      </div>
    </form>
  );
}

/**
 * Across an air gap, on the daemon's own disks (the CLI's `boxyard import` and `boxyard export` do it from any
 * machine).
 */
export function FolderTransfer() {
  const { admin } = useSession();
  return (
    <Section title="Import and export folders">
      {admin ? (
        <>
          <ImportFolderForm />
          <ExportFolderForm />
        </>
      ) : (
        <p className="muted">
          Only administrators may read or write folders on the daemon's machine. Use <code>boxyard import</code> and{' '}
          <code>boxyard export</code> from yours.
        </p>
      )}
    </Section>
  );
}
