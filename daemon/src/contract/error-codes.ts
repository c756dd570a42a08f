/** Stable error codes shared by the daemon, the UI and the Electron shell. Never branch on message text. */
export const ERROR_CODES = [
  'bad_request',
  'bad_parameter',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'misdirected',
  'validation',
  'conflict',
  'precondition_failed',
  'two_factor_required',
  'reauthentication_required',
  'last_owner',
  'last_admin',
  'payload_too_large',
  'request_timeout',
  'rate_limited',
  'maintenance',
  'offline',
  'upstream_failed',
  'insufficient_storage',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
