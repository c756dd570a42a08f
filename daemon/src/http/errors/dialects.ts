import type { ErrorCode } from '../../contract/error-codes';

/** Box API (Vagrant Cloud) or JSON:API (HCP Terraform) error rendering. */
export type Dialect = 'box' | 'jsonapi';

/**
 * One table from code to status. The two APIs disagree on invalid input: Vagrant Cloud answers
 * 403 for missing or invalid parameters, HCP Terraform answers 422 for a malformed body.
 */
const STATUS: Record<ErrorCode, number | Record<Dialect, number>> = {
  bad_request: 400,
  bad_parameter: { box: 403, jsonapi: 400 },
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  // A Host header this daemon does not answer to (http/hosts.ts): DNS rebinding, or a name to allow.
  misdirected: 421,
  validation: { box: 403, jsonapi: 422 },
  conflict: 422,
  precondition_failed: 412,
  two_factor_required: 406,
  // A signed-in user changing a credential without (or with a wrong) current password or code: not
  // 401, which clients (the UI) take as "the token is gone".
  reauthentication_required: 403,
  last_owner: 422,
  last_admin: 422,
  payload_too_large: 413,
  // A body that did not arrive in time (a JSON body trickled byte by byte): the connection closes.
  request_timeout: 408,
  rate_limited: 429,
  maintenance: 503,
  // The pull-through cache while offline: what it does not hold is simply not there.
  offline: 404,
  upstream_failed: 502,
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
  validation: 'invalid attribute',
  conflict: 'unprocessable entity',
  precondition_failed: 'precondition failed',
  two_factor_required: 'two-factor code required',
  reauthentication_required: 'current password required',
  last_owner: 'last owner',
  last_admin: 'last administrator',
  payload_too_large: 'payload too large',
  request_timeout: 'request timeout',
  rate_limited: 'too many requests',
  maintenance: 'service unavailable',
  offline: 'offline',
  upstream_failed: 'bad gateway',
  insufficient_storage: 'insufficient storage',
  internal: 'internal server error',
};

export function statusFor(code: ErrorCode, dialect: Dialect): number {
  const s = STATUS[code];
  return typeof s === 'number' ? s : s[dialect];
}

export const titleFor = (code: ErrorCode): string => TITLES[code];
