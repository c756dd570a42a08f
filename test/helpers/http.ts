/**
 * A parsed JSON body, typed as `JSON.parse` and `Response.json()` type it (any): the tests read
 * answers of every API and shape, and a wrong guess fails the expectation that reads it. The
 * answers' types are checked against the contract's zod schemas in test/contract/. The one `any`
 * the linter lets through, said here rather than hidden behind `ReturnType<typeof JSON.parse>`.
 */
// biome-ignore lint/suspicious/noExplicitAny: expectations read answers of every shape (typed in test/contract/)
export type ParsedJson = any;

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: ParsedJson;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** A JSON value, or a raw string/Buffer sent as is. */
  body?: unknown;
  raw?: boolean;
}

/** A small fetch wrapper for tests: JSON in, status + headers + parsed body out. */
export class HttpClient {
  constructor(
    readonly baseUrl: string,
    private readonly token?: string,
    private readonly contentType = 'application/json',
    /** A fetch that trusts the daemon's CA, for a daemon on HTTPS (tls/client-fetch.ts). */
    readonly send: typeof fetch = fetch,
  ) {}

  withToken(token: string | undefined): HttpClient {
    return new HttpClient(this.baseUrl, token, this.contentType, this.send);
  }
  withContentType(type: string): HttpClient {
    return new HttpClient(this.baseUrl, this.token, type, this.send);
  }

  async request(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (this.token && !('authorization' in headers)) headers.authorization = `Bearer ${this.token}`;
    let body: string | Uint8Array | undefined;
    if (opts.body !== undefined) {
      body = opts.raw ? (opts.body as string | Uint8Array) : JSON.stringify(opts.body);
      if (!('content-type' in headers)) headers['content-type'] = this.contentType;
    }
    const res = await this.send(path.startsWith('http') ? path : this.baseUrl + path, {
      method,
      headers,
      body: body as RequestInit['body'],
      redirect: 'manual',
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  get = (path: string, opts?: RequestOptions) => this.request('GET', path, opts);
  head = (path: string, opts?: RequestOptions) => this.request('HEAD', path, opts);
  delete = (path: string, opts?: RequestOptions) => this.request('DELETE', path, opts);
  post = (path: string, body?: unknown, opts?: RequestOptions) => this.request('POST', path, { ...opts, body });
  put = (path: string, body?: unknown, opts?: RequestOptions) => this.request('PUT', path, { ...opts, body });
  patch = (path: string, body?: unknown, opts?: RequestOptions) => this.request('PATCH', path, { ...opts, body });
}
