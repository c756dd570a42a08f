import { errorCodeOf, type ErrorCode } from '../../../daemon/src/contract/error-codes';
import { CSRF_HEADER, CSRF_VALUE, JSONAPI_TYPE } from '../../../daemon/src/contract/headers';

/**
 * Thrown for any non-2xx answer. `code` is the daemon's error code (undefined for an answer that
 * was not the daemon's): act on it, not on the status or the text. `messages` come from either
 * error dialect the daemon speaks.
 */
export class ApiError extends Error {
  readonly code: ErrorCode | undefined;
  constructor(
    readonly status: number,
    readonly messages: string[],
    readonly body: unknown,
  ) {
    super(messages.join(' ') || `Request failed with status ${status}.`);
    this.code = errorCodeOf(body);
  }
}

/** `e` is the daemon's refusal with this code. */
export const isApiError = (e: unknown, code: ErrorCode): e is ApiError => e instanceof ApiError && e.code === code;

/**
 * Reads both error shapes: the box API's (and /api/boxyard's) `{"errors":["…"],"code"}` and
 * JSON:API's `{"errors":[{"code","title","detail"}]}` (agent pools under /api/v2).
 */
export function errorMessages(body: unknown): string[] {
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.map((e) => {
    if (typeof e === 'string') return e;
    const o = e as { detail?: string; title?: string };
    return o.detail || o.title || JSON.stringify(e);
  });
}

/**
 * Whether a failed query is asked again (TanStack Query's `retry`, at most 3 times): a network
 * failure or the daemon's 5xx may pass; its refusal (a 4xx: the box does not exist, the caller may
 * not see it) will not, and asking again only kept the page on "Loading…" for seconds before it
 * could say so. Maintenance mode (503) says why at once too; 408 and 429 are worth another try.
 */
export function retryQuery(failures: number, error: unknown): boolean {
  if (failures >= 3 || isApiError(error, 'maintenance')) return false;
  if (!(error instanceof ApiError)) return true;
  return error.status >= 500 || error.status === 408 || error.status === 429;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  /** Send and accept JSON:API (`application/vnd.api+json`), for the agent-pools API. */
  jsonapi?: boolean;
}

export type Fetcher = <T = unknown>(path: string, opts?: RequestOptions) => Promise<T>;

/**
 * The header every UI request carries. The daemon signs the UI in with an httpOnly cookie (script
 * never sees a token) and accepts that cookie on a change only with this header, which a page on
 * another origin cannot send (daemon/src/http/session-cookie.ts).
 */
export const CSRF_HEADERS: Readonly<Record<string, string>> = { [CSRF_HEADER]: CSRF_VALUE };

/** The one fetch helper: JSON in and out, the session cookie and CSRF header, errors as ApiError. */
export function makeFetcher(onUnauthorized: () => void): Fetcher {
  return async <T>(path: string, opts: RequestOptions = {}): Promise<T> => {
    const type = opts.jsonapi ? JSONAPI_TYPE : 'application/json';
    const headers: Record<string, string> = { accept: type, ...CSRF_HEADERS };
    if (opts.body !== undefined) headers['content-type'] = type;
    const res = await fetch(path, {
      method: opts.method ?? 'GET',
      headers,
      credentials: 'same-origin',
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (!res.ok) {
      // The session is gone (never a wrong current password: that is reauthentication_required).
      if (errorCodeOf(parsed) === 'unauthorized') onUnauthorized();
      const messages = errorMessages(parsed);
      throw new ApiError(
        res.status,
        messages.length
          ? messages
          : [typeof parsed === 'string' && parsed ? parsed : `${res.status} ${res.statusText}`],
        parsed,
      );
    }
    return parsed as T;
  };
}

/** A path with each segment percent-encoded: `apiPath('/api/v1/box', user, name)`. */
export const apiPath = (base: string, ...segments: string[]): string =>
  [base, ...segments.map((s) => encodeURIComponent(s))].join('/');
