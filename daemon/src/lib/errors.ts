import type { ErrorCode } from '../contract/error-codes';

export interface ErrorOptions {
  /** JSON:API `source.pointer` or `source.parameter`. */
  source?: { pointer?: string; parameter?: string };
  /** Extra top-level fields of the box-API body (e.g. `two_factor`). */
  extra?: Record<string, unknown>;
  /** Extra response headers (e.g. `Retry-After`). */
  headers?: Record<string, string>;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly options: ErrorOptions = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

const make = (code: ErrorCode) =>
  class extends AppError {
    constructor(message: string, options?: ErrorOptions) {
      super(code, message, options);
    }
  };

export class BadRequestError extends make('bad_request') {}
export class BadParameterError extends make('bad_parameter') {}
export class UnauthorizedError extends make('unauthorized') {}
export class ForbiddenError extends make('forbidden') {}
export class NotFoundError extends make('not_found') {}
export class ValidationError extends make('validation') {}
export class ConflictError extends make('conflict') {}
export class PreconditionFailedError extends make('precondition_failed') {}
export class TwoFactorRequiredError extends make('two_factor_required') {}
export class ReauthenticationError extends make('reauthentication_required') {}
export class LastOwnerError extends make('last_owner') {}
export class LastAdminError extends make('last_admin') {}
export class PayloadTooLargeError extends make('payload_too_large') {}
export class RequestTimeoutError extends make('request_timeout') {}
export class RateLimitedError extends make('rate_limited') {}
export class MaintenanceError extends make('maintenance') {}
export class OfflineError extends make('offline') {}
export class UpstreamError extends make('upstream_failed') {}
export class InsufficientStorageError extends make('insufficient_storage') {}
