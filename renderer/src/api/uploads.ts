import { ApiError, CSRF_HEADERS, errorMessages } from './client';

/** Bytes sent so far of how many (the file's size once the browser knows it). */
export interface SentBytes {
  loaded: number;
  total: number;
}

/** Thrown when the caller's signal aborted the upload: the daemon got a short body and stored nothing. */
export class UploadAbortedError extends Error {
  constructor() {
    super('Upload cancelled.');
    this.name = 'UploadAbortedError';
  }
}

export const isUploadAborted = (e: unknown): boolean => e instanceof UploadAbortedError;

/**
 * PUTs a file with XHR, because fetch() cannot report upload progress. Upload URLs carry the
 * capability; the import endpoint is authenticated by the session cookie, which the browser sends
 * (with the CSRF header every UI request carries).
 * Resolves with the parsed answer; a non-2xx answer is an ApiError with the daemon's messages.
 * `signal` aborts the request itself (xhr.abort()), so the browser stops sending at once.
 */
export function putFile(
  url: string,
  file: File,
  onProgress: (sent: SentBytes) => void,
  signal?: AbortSignal,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new UploadAbortedError());
    const xhr = new XMLHttpRequest();
    const abort = () => xhr.abort();
    signal?.addEventListener('abort', abort, { once: true });
    const settle = () => signal?.removeEventListener('abort', abort);
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', 'application/octet-stream');
    xhr.setRequestHeader('accept', 'application/json');
    for (const [k, v] of Object.entries(CSRF_HEADERS)) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => onProgress({ loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.onload = () => {
      settle();
      let body: unknown;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        body = xhr.responseText;
      }
      if (xhr.status >= 200 && xhr.status < 300) return resolve(body);
      const messages = errorMessages(body);
      reject(
        new ApiError(
          xhr.status,
          messages.length ? messages : [`Upload failed (${xhr.status}): ${xhr.responseText.slice(0, 300)}`],
          body,
        ),
      );
    };
    xhr.onabort = () => {
      settle();
      reject(new UploadAbortedError());
    };
    xhr.onerror = () => {
      settle();
      reject(new Error('Upload failed: the connection to the daemon was lost.'));
    };
    xhr.send(file);
  });
}
