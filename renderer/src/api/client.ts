/** Thrown for any non-2xx answer; `messages` come from either error dialect the daemon speaks. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly messages: string[], readonly body: unknown) {
    super(messages.join(' ') || `Request failed with status ${status}.`);
  }
}

/**
 * Reads both error shapes: the box API's `{"errors":["…"]}` and JSON:API's
 * `{"errors":[{"title","detail"}]}` (agent pools under /api/v2).
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
export const CSRF_HEADERS: Readonly<Record<string, string>> = { 'x-boxyard-csrf': '1' };

/** The one fetch helper: JSON in and out, the session cookie and CSRF header, errors as ApiError. */
export function makeFetcher(onUnauthorized: () => void): Fetcher {
  return async <T,>(path: string, opts: RequestOptions = {}): Promise<T> => {
    const type = opts.jsonapi ? 'application/vnd.api+json' : 'application/json';
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
    try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = text; }
    if (!res.ok) {
      if (res.status === 401) onUnauthorized();
      const messages = errorMessages(parsed);
      throw new ApiError(res.status, messages.length ? messages : [typeof parsed === 'string' && parsed ? parsed : `${res.status} ${res.statusText}`], parsed);
    }
    return parsed as T;
  };
}

/** A path with each segment percent-encoded: `apiPath('/api/v1/box', user, name)`. */
export const apiPath = (base: string, ...segments: string[]): string =>
  [base, ...segments.map((s) => encodeURIComponent(s))].join('/');
