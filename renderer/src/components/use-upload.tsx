import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { prepareUpload, type ProviderRef } from '../api/boxes';
import { isUploadAborted, putFile } from '../api/uploads';
import { RateMeter, formatEta } from '../api/upload-meter';
import { useSession } from '../api/session';
import { queryKeys } from '../api/query-keys';
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

/**
 * Uploads a box file to a provider (prepare, then PUT with progress) and refreshes the box. One
 * upload at a time: `upload` refuses while one runs. `cancel` aborts the PUT itself; `retry` asks
 * for a new upload URL (each is single-use) and sends the same file again.
 */
export function useUpload() {
  const { api } = useSession();
  const qc = useQueryClient();
  const [meter, setMeter] = useState<UploadMeter | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [cancelled, setCancelled] = useState(false);
  /** The upload that did not finish, for Retry. */
  const [unfinished, setUnfinished] = useState<{ ref: ProviderRef; file: File } | null>(null);
  const running = useRef<AbortController | null>(null);
  useLeaveWarning(meter !== null);
  useEffect(() => () => running.current?.abort(), []);

  const upload = async (ref: ProviderRef, file: File): Promise<boolean> => {
    if (running.current) return false;
    const controller = new AbortController();
    running.current = controller;
    setError(null);
    setCancelled(false);
    setUnfinished(null);
    const rates = new RateMeter();
    setMeter({ fraction: 0, loaded: 0, total: file.size, rate: null, eta: null });
    try {
      const { upload_path } = await prepareUpload(api, ref);
      await putFile(
        upload_path,
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
      return true;
    } catch (e) {
      if (isUploadAborted(e)) setCancelled(true);
      else setError(e);
      setUnfinished({ ref, file });
      return false;
    } finally {
      running.current = null;
      await qc.invalidateQueries({ queryKey: queryKeys.box(ref.user, ref.name) });
      setMeter(null);
    }
  };
  const retry = () => (unfinished ? upload(unfinished.ref, unfinished.file) : Promise.resolve(false));
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
