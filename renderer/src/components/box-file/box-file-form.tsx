import { useId, useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { importBoxFile, type ImportTarget } from '../../api/mirrors';
import { queryKeys } from '../../api/query-keys';
import { useSession } from '../../api/session';
import type { ImportResultJson } from '../../../../daemon/src/contract/wire/mirror';
import { VERSION_STATUS_WORDS } from '../../../../daemon/src/contract/wire/registry';
import { issuesOf } from '../form-issues';
import { ErrorNote } from '../ui';
import { UploadDrop } from '../upload-drop';
import { UploadProgress, useFileSend } from '../use-upload';
import { BoxFileBody, BoxFileFields, type Fixed } from './box-file-fields';
import { boxNameOf, useBoxFileReading, type BoxFileDraft, type FromFile } from './use-box-file';

type Target = ImportTarget & { name: string };

/** What the daemon made, in the UI's words (VERSION_STATUS_WORDS). */
export const importedWords = (r: ImportResultJson): string =>
  `${r.box} ${r.version}: ${r.provider} for ${r.architecture}, ${VERSION_STATUS_WORDS[r.released ? 'active' : 'unreleased']}`;

/**
 * The one way to add a box file: the file first (dropped or chosen), its provider and architecture read from its
 * metadata.json and shown, editable; then where it goes (what `fixed` does not say) with a live preview of the
 * `owner/name`, version and file it makes. One PUT to the import endpoint makes the box and version when missing and
 * adds the file as a provider; Cancel aborts it and nothing is made, Retry sends it again.
 */
export function BoxFileForm({
  fixed = {},
  owner,
  release = false,
  onDone,
}: {
  fixed?: Fixed;
  /** The owner preselected when it is not fixed (the organization the user came from). */
  owner?: string;
  release?: boolean;
  onDone?: (r: ImportResultJson) => void;
}) {
  const { username } = useSession();
  const qc = useQueryClient();
  const start: BoxFileDraft = {
    owner: fixed.owner ?? owner ?? username ?? '',
    box: fixed.box ?? '',
    version: fixed.version ?? '1.0.0',
    provider: '',
    architecture: '',
    release,
    isPrivate: false,
  };
  const [d, setD] = useState<BoxFileDraft>(start);
  const [file, setFile] = useState<File | null>(null);
  const [refused, setRefused] = useState<FromFile>({});
  const [issues, setIssues] = useState<Record<string, string>>({});
  const [done, setDone] = useState<ImportResultJson | null>(null);
  const set = (patch: Partial<BoxFileDraft>) => {
    setD((x) => ({ ...x, ...patch }));
    // A field changed by hand no longer carries the file's refusal, nor its last check's.
    const cleared = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).filter(([k]) => !(k in patch)));
    setRefused((r) => cleared(r));
    setIssues((i) => cleared(i));
  };
  const reading = useBoxFileReading(file, (patch, why) => {
    setD((x) => ({ ...x, ...patch, box: x.box || (file ? boxNameOf(file.name) : '') }));
    setRefused(why);
  });
  const send = useFileSend<Target, ImportResultJson>((t, f, onSent, signal) => importBoxFile(t, f, onSent, signal));

  const choose = (f: File | null) => {
    setFile(f);
    setDone(null);
    setIssues({});
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!file) return setIssues({ file: 'Choose or drop a .box file first.' });
    if (reading.state !== 'read') return;
    const found = issuesOf(BoxFileBody, { ...d, box: d.box.trim(), version: d.version.trim() });
    if (found || Object.keys(refused).length) return setIssues({ ...found, ...refused });
    const target: Target = {
      user: d.owner,
      box: d.box.trim(),
      name: d.box.trim(),
      version: d.version.trim(),
      release: d.release,
      provider: d.provider,
      architecture: d.architecture,
      private: d.isPrivate,
    };
    const r = await send.upload(target, file);
    if (!r) return;
    await qc.invalidateQueries({ queryKey: queryKeys.namespaces });
    setDone(r);
    setFile(null);
    onDone?.(r);
  };

  const fileIssue = issues.file ?? (reading.state === 'failed' ? reading.error : undefined);
  const fileIssueId = useId();
  const label = send.uploading ? 'Uploading…' : send.canRetry ? 'Retry upload' : 'Upload';
  return (
    <form className="stack box-file-form" onSubmit={(e) => void submit(e)} aria-label="Add a box file">
      <UploadDrop
        file={file}
        onFile={choose}
        disabled={send.uploading}
        describedBy={fileIssue ? fileIssueId : undefined}
      />
      {fileIssue && (
        <p className="error field-error" role="alert" id={fileIssueId}>
          {fileIssue}
        </p>
      )}
      {reading.state === 'reading' && (
        <p className="muted" role="status">
          Reading the file's metadata.json…
        </p>
      )}
      {reading.state === 'read' && (
        <p className="muted" role="status">
          Provider and architecture, read from the file: change them if they are wrong. {reading.said}
        </p>
      )}
      <BoxFileFields d={d} set={set} fixed={fixed} issues={{ ...refused, ...issues }} />
      <UploadProgress meter={send.meter} />
      {send.cancelled && (
        <p className="muted" role="status">
          Upload cancelled: nothing was made. Upload again when you are ready.
        </p>
      )}
      {done && (
        <p role="status">
          Added <span className="mono">{importedWords(done)}</span>.
        </p>
      )}
      <ErrorNote error={send.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={send.uploading || reading.state === 'reading'}>
          {label}
        </button>
        {send.uploading && (
          <button type="button" className="danger" onClick={send.cancel}>
            Cancel upload
          </button>
        )}
      </div>
    </form>
  );
}
