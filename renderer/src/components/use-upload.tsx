import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { prepareUpload, type ProviderRef } from '../api/boxes';
import { isUploadAborted, putFile, type SentBytes } from '../api/uploads';
import { RateMeter, formatEta } from '../api/upload-meter';
import { useSession } from '../api/session';
import { boxViews } from '../api/query-keys';
import { formatBytes } from './format';

/** Where a running upload stands: its share, bytes, speed (bytes/s) and seconds left. */
export interface UploadMeter {
  fraction: number;
  loaded: number;
  total: number;
  rate: number | null;
  eta: number | null;
}

/** Asks the browser to confirm leaving the page (or closing it) while `active`: the upload would stop. */
export function useLeaveWarning(active: boolean) {
  useEffect(() => {
    if (!active) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      // Chromium before 119 and Safari show the prompt only when returnValue is set.
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [active]);
}

/** Sends `file` for `target`, reporting bytes sent; `signal` aborts the request itself. */
export type SendFile<T, R> = (
  target: T,
  file: File,
  onSent: (sent: SentBytes) => void,
  signal: AbortSignal,
) => Promise<R>;

/**
 * Sends a box file with progress and refreshes its box. One send at a time: `upload` refuses while one runs and
 * resolves with the answer, or null when it failed or was cancelled. `cancel` aborts the PUT itself; `retry` sends
 * the same file for the same target again (each send asks anew for what it needs, such as a single-use upload URL).
 */
export function useFileSend<T extends { user: string; name: string }, R>(send: SendFile<T, R>) {
  const qc = useQueryClient();
  const [meter, setMeter] = useState<UploadMeter | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [cancelled, setCancelled] = useState(false);
  /** The upload that did not finish, for Retry. */
  const [unfinished, setUnfinished] = useState<{ ref: T; file: File } | null>(null);
  const running = useRef<AbortController | null>(null);
  useLeaveWarning(meter !== null);
  useEffect(() => () => running.current?.abort(), []);

  const upload = async (ref: T, file: File): Promise<R | null> => {
    if (running.current) return null;
    const controller = new AbortController();
    running.current = controller;
    setError(null);
    setCancelled(false);
    setUnfinished(null);
    const rates = new RateMeter();
    setMeter({ fraction: 0, loaded: 0, total: file.size, rate: null, eta: null });
    try {
      const answer = await send(
        ref,
        file,
        ({ loaded, total }) => {
          rates.add(performance.now(), loaded);
          setMeter({
            fraction: total > 0 ? loaded / total : 0,
            loaded,
            total,
            rate: rates.rate(),
            eta: rates.eta(total),
          });
        },
        controller.signal,
      );
      // The full bar stays up while the box is fetched again (the last progress event may not have been drawn).
      setMeter({ fraction: 1, loaded: file.size, total: file.size, rate: rates.rate(), eta: 0 });
      return answer;
    } catch (e) {
      if (isUploadAborted(e)) setCancelled(true);
      else setError(e);
      setUnfinished({ ref, file });
      return null;
    } finally {
      running.current = null;
      for (const queryKey of boxViews(ref.user, ref.name)) await qc.invalidateQueries({ queryKey });
      setMeter(null);
    }
  };
  const retry = () => (unfinished ? upload(unfinished.ref, unfinished.file) : Promise.resolve(null));
  const cancel = () => running.current?.abort();
  return {
    upload,
    retry,
    cancel,
    meter,
    progress: meter?.fraction ?? null,
    uploading: meter !== null,
    error,
    cancelled,
    canRetry: unfinished !== null && meter === null,
  };
}

/** Uploads a box file to a provider that waits for it: prepare (a single-use upload URL), then PUT. */
export function useUpload() {
  const { api } = useSession();
  return useFileSend<ProviderRef, true>(async (ref, file, onSent, signal) => {
    const { upload_path } = await prepareUpload(api, ref);
    await putFile(upload_path, file, onSent, signal);
    return true;
  });
}

/** The bar with its percentage and, once measured, the speed and the time left. */
export function UploadProgress({ progress, meter }: { progress?: number | null; meter?: UploadMeter | null }) {
  const fraction = meter?.fraction ?? progress ?? null;
  if (fraction === null) return null;
  const pct = Math.round(fraction * 100);
  return (
    <span className="upload-progress" role="status">
      <progress max={1} value={fraction} aria-label="Upload progress">
        {pct}%
      </progress>
      <span className="muted">{pct}%</span>
      {meter && (
        <span className="muted">
          {formatBytes(meter.loaded)} of {formatBytes(meter.total)}
        </span>
      )}
      {meter?.rate != null && (
        <output className="muted" aria-label="Upload speed">
          {formatBytes(meter.rate)}/s
        </output>
      )}
      {meter?.eta != null && (
        <output className="muted" aria-label="Time left">
          {formatEta(meter.eta)}
        </output>
      )}
    </span>
  );
}
