import type { ErrorCode } from '../../contract/error-codes';
import type { AppError } from '../../lib/errors';
import { JSONAPI_TYPE } from '../../contract/headers';

/**
 * How an API answers errors. Each mount picks its own when app.ts mounts it (`routeTable`):
 * - `box`: the Vagrant Cloud API (/api/v1, the box routes of /api/v2, the catalog, downloads and
 *   uploads at the root): `{"errors":["…"],"success":false,"code":"…"}`, plus `two_factor` when a
 *   code is needed (the vagrant_cloud gem reads it);
 * - `ui`: Boxyard's own API (/api/boxyard), the same shape (the UI also calls /api/v1);
 * - `agent`: the agent protocol (/api/agent), the same shape plus `"action":"stop"` when retrying
 *   cannot help, which a Boxyard agent obeys;
 * - `jsonapi`: the HCP Terraform API (the rest of /api/v2):
 *   `{"errors":[{"status","code","title","detail","source"}]}`;
 * - `hcp`: HCP's APIs (/vagrant/2022-09-30, /operation/2020-05-05): a google.rpc.Status,
 *   `{"code":<gRPC code>,"message":"…","details":[{"@type":"…ErrorInfo","reason":"<Boxyard's code>",…}]}`, of which
 *   Packer's vagrant-registry shows only `message`;
 * - `oauth2`: the token endpoint (`POST /oauth2/token`), RFC 6749 §5.2: `{"error","error_description"}`, plus the
 *   stable `code`.
 */
export type Dialect = 'box' | 'ui' | 'agent' | 'jsonapi' | 'hcp' | 'oauth2';
export const DIALECTS: readonly Dialect[] = ['box', 'ui', 'agent', 'jsonapi', 'hcp', 'oauth2'];

/**
 * One table from code to status. The two public APIs disagree on invalid input: Vagrant Cloud
 * answers 403 for missing or invalid parameters, HCP Terraform 400 for a bad query parameter and
 * 422 for a malformed body. The UI API and the agent protocol answer as the box API always has.
 */
const STATUS: Record<ErrorCode, number | { box: number; jsonapi: number }> = {
  bad_request: 400,
  bad_parameter: { box: 403, jsonapi: 400 },
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  // A Host header this daemon does not answer to (http/guards/hosts.ts): DNS rebinding, or a name to allow.
  misdirected: 421,
  // As nginx answers plain HTTP on its HTTPS port; nothing was done with the request.
  https_required: 400,
  validation: { box: 403, jsonapi: 422 },
  conflict: 422,
  precondition_failed: 412,
  two_factor_required: 406,
  // A signed-in user changing a credential without (or with a wrong) current password or code: not
  // 401, which clients (the UI) take as "the token is gone".
  reauthentication_required: 403,
  last_owner: 422,
  last_admin: 422,
  limit_reached: 422,
  payload_too_large: 413,
  // A body that did not arrive in time (a JSON body trickled byte by byte): the connection closes.
  request_timeout: 408,
  rate_limited: 429,
  // Refused before a request was read (http/guards/connection-guard.ts).
  too_many_connections: 503,
  maintenance: 503,
  // The pull-through cache while offline: what it does not hold is simply not there.
  offline: 404,
  upstream_failed: 502,
  // Server-side request forgery refused: the address is checked, never tried. 422 for a URL the
  // client gave (the error names its field); 502 for one an upstream named (render, below).
  address_not_allowed: 422,
  insufficient_storage: 507,
  internal: 500,
};

const TITLES: Record<ErrorCode, string> = {
  bad_request: 'bad request',
  bad_parameter: 'invalid query parameter',
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  not_found: 'not found',
  method_not_allowed: 'method not allowed',
  misdirected: 'misdirected request',
  https_required: 'https required',
  validation: 'invalid attribute',
  conflict: 'unprocessable entity',
  precondition_failed: 'precondition failed',
  two_factor_required: 'two-factor code required',
  reauthentication_required: 'current password required',
  last_owner: 'last owner',
  last_admin: 'last administrator',
  limit_reached: 'limit reached',
  payload_too_large: 'payload too large',
  request_timeout: 'request timeout',
  rate_limited: 'too many requests',
  too_many_connections: 'too many connections',
  maintenance: 'service unavailable',
  offline: 'offline',
  upstream_failed: 'bad gateway',
  address_not_allowed: 'address not allowed',
  insufficient_storage: 'insufficient storage',
  internal: 'internal server error',
};

/** Codes that answer before the request body was read: the rest of it is not waited for. */
const CLOSES_CONNECTION: ReadonlySet<ErrorCode> = new Set(['payload_too_large', 'request_timeout']);

/** Refusals an agent may retry: the daemon is busy or away, not the agent wrong. */
const AGENT_RETRIES: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'request_timeout']);

/**
 * HCP's statuses where they differ (its gateway's mapping of gRPC codes): invalid input is 400 (INVALID_ARGUMENT), a
 * state that forbids the change 409 (a version already released, a name taken, a checksum that does not match).
 */
const HCP_STATUS: Partial<Record<ErrorCode, number>> = {
  bad_parameter: 400,
  validation: 400,
  conflict: 409,
  last_owner: 409,
  last_admin: 409,
  limit_reached: 409,
  precondition_failed: 409,
  address_not_allowed: 400,
};

/** The gRPC code of an HTTP status, as grpc-gateway maps them back (google.rpc.Code). */
const GRPC_CODE: Record<number, number> = {
  400: 3,
  401: 16,
  403: 7,
  404: 5,
  405: 12,
  408: 4,
  409: 9,
  413: 11,
  421: 7,
  429: 8,
  500: 13,
  502: 14,
  503: 14,
  507: 8,
};

/** Statuses RFC 6749 §5.2 keeps: the rest of a client's mistakes are its 400. */
const OAUTH2_STATUSES: ReadonlySet<number> = new Set([401, 405, 408, 413, 421, 429]);

export function statusFor(code: ErrorCode, dialect: Dialect): number {
  const hcp = dialect === 'hcp' ? HCP_STATUS[code] : undefined;
  if (hcp !== undefined) return hcp;
  const s = STATUS[code];
  const status = typeof s === 'number' ? s : dialect === 'jsonapi' ? s.jsonapi : s.box;
  return dialect === 'oauth2' && status < 500 && !OAUTH2_STATUSES.has(status) ? 400 : status;
}

/**
 * RFC 6749 §5.2's error for a code: a client that failed to authenticate is `invalid_client`, a grant type other than
 * client_credentials (`field` "grant_type") `unsupported_grant_type`, any other mistake `invalid_request`.
 */
function oauth2Error(err: AppError, status: number): string {
  if (err.code === 'unauthorized') return 'invalid_client';
  if (status >= 500) return 'server_error';
  return err.field === 'grant_type' ? 'unsupported_grant_type' : 'invalid_request';
}

export const titleFor = (code: ErrorCode): string => TITLES[code];

export interface Rendered {
  status: number;
  type: string;
  body: Record<string, unknown>;
  /** Response headers the error asks for (`Retry-After`, `Connection: close`). */
  headers: Record<string, string>;
}

const escapePointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** JSON:API `source` for a field: a query parameter, a path into the document, a relationship or an attribute. */
export function jsonapiSource(
  code: ErrorCode,
  field: string | undefined,
): { pointer: string } | { parameter: string } | undefined {
  if (!field) return undefined;
  if (code === 'bad_parameter') return { parameter: field };
  const [head, ...rest] = field.split('.').map(escapePointer);
  if (head === 'data') return { pointer: `/${[head, ...rest].join('/')}` };
  if (head === 'relationships' && rest.length > 0)
    return { pointer: ['/data/relationships', rest[0], 'data', ...rest.slice(1)].join('/') };
  return { pointer: `/data/attributes/${escapePointer(field)}` };
}

function boxBody(err: AppError): Record<string, unknown> {
  const body: Record<string, unknown> = { errors: [err.message], success: false, code: err.code };
  if (err.deliveryMethods) {
    body.two_factor = { default_delivery_method: err.deliveryMethods[0], delivery_methods: err.deliveryMethods };
  }
  return body;
}

/** The status, media type, body and headers of `err` in `dialect`. */
export function render(err: AppError, dialect: Dialect): Rendered {
  // A refused address the client did not give was named by an upstream: the gateway's refusal.
  const status = err.code === 'address_not_allowed' && err.field === undefined ? 502 : statusFor(err.code, dialect);
  const headers: Record<string, string> = {};
  if (err.retryAfterSeconds !== undefined)
    headers['Retry-After'] = String(Math.max(0, Math.ceil(err.retryAfterSeconds)));
  if (CLOSES_CONNECTION.has(err.code)) headers.Connection = 'close';
  if (err.challenge !== undefined) headers['WWW-Authenticate'] = err.challenge;
  if (dialect === 'oauth2') {
    // RFC 6749 §5.1: token answers, errors included, are never cached.
    headers['Cache-Control'] = 'no-store';
    const body = { error: oauth2Error(err, status), error_description: err.message, code: err.code };
    return { status, type: 'application/json', body, headers };
  }
  if (dialect === 'jsonapi') {
    const e: Record<string, unknown> = {
      status: String(status),
      code: err.code,
      title: titleFor(err.code),
      detail: err.message,
    };
    const source = jsonapiSource(err.code, err.field);
    if (source) e.source = source;
    return { status, type: JSONAPI_TYPE, body: { errors: [e] }, headers };
  }
  if (dialect === 'hcp') {
    const info: Record<string, unknown> = {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: err.code,
      domain: 'boxyard',
    };
    if (err.field) info.metadata = { field: err.field };
    const body = { code: GRPC_CODE[status] ?? 2, message: err.message, details: [info] };
    return { status, type: 'application/json', body, headers };
  }
  const body = boxBody(err);
  if (dialect === 'agent' && status < 500 && !AGENT_RETRIES.has(err.code)) body.action = 'stop';
  return { status, type: 'application/json', body, headers };
}
