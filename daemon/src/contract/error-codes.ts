/**
 * Stable error codes shared by the daemon, the UI and the CLI. Every error body carries one: the
 * box API's (and the UI's and agent protocol's) `{"errors":["…"],"success":false,"code":"…"}`,
 * JSON:API's `{"errors":[{"status","code","title","detail"}]}`. Act on the code, never on message
 * text or on the status alone.
 */
export const ERROR_CODES = [
  'bad_request',
  'bad_parameter',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'misdirected',
  // Plain HTTP sent to the HTTPS port, or an API request to the plain-HTTP port (http/guards/https.ts).
  'https_required',
  'validation',
  'conflict',
  'precondition_failed',
  'two_factor_required',
  'reauthentication_required',
  'last_owner',
  'last_admin',
  // Past a limit an owner can raise (an organization's agent-pool-limit): the UI offers to raise it.
  'limit_reached',
  'payload_too_large',
  'request_timeout',
  'rate_limited',
  'too_many_connections',
  'maintenance',
  'offline',
  'upstream_failed',
  // An upstream address a non-administrator may not reach (lib/address-policy.ts).
  'address_not_allowed',
  'insufficient_storage',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

export const isErrorCode = (value: unknown): value is ErrorCode => typeof value === 'string' && KNOWN.has(value);

/**
 * The code of an error body in any of the daemon's dialects; undefined for a body that names none (not the daemon's).
 */
export function errorCodeOf(body: unknown): ErrorCode | undefined {
  const doc = body as { code?: unknown; errors?: unknown; details?: unknown } | null | undefined;
  if (typeof doc !== 'object' || doc === null) return undefined;
  if (isErrorCode(doc.code)) return doc.code;
  // HCP's google.rpc.Status: the code is the gRPC one; Boxyard's is the ErrorInfo's reason.
  const detail = Array.isArray(doc.details) ? (doc.details[0] as { reason?: unknown } | null | undefined) : undefined;
  if (typeof detail === 'object' && detail !== null && isErrorCode(detail.reason)) return detail.reason;
  const first = Array.isArray(doc.errors) ? (doc.errors[0] as { code?: unknown } | null | undefined) : undefined;
  return typeof first === 'object' && first !== null && isErrorCode(first.code) ? first.code : undefined;
}
