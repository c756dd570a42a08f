import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { prepareUpload, putFile, type ProviderRef } from '../api/boxes';
import { useSession } from '../api/session';
import { queryKeys } from '../api/query-keys';

/** Uploads a box file to a provider (prepare, then PUT with progress) and refreshes the box. */
export function useUpload() {
  const { api } = useSession();
  const qc = useQueryClient();
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const upload = async (ref: ProviderRef, file: File): Promise<boolean> => {
    setError(null);
    setProgress(0);
    try {
      const { upload_path } = await prepareUpload(api, ref);
      await putFile(upload_path, file, setProgress);
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setProgress(null);
      await qc.invalidateQueries({ queryKey: queryKeys.box(ref.user, ref.name) });
    }
  };
  return { upload, progress, error };
}

export function UploadProgress({ progress }: { progress: number | null }) {
  if (progress === null) return null;
  return (
    <span className="upload-progress">
      <progress max={1} value={progress} aria-label="Upload progress">{Math.round(progress * 100)}%</progress>
      <span className="muted">{Math.round(progress * 100)}%</span>
    </span>
  );
}
