import type { ErrorCode } from '../contract/error-codes';

/**
 * What an error says beyond its code and message, in the domain's terms. The mount that answers
 * the request renders it (`http/errors/dialects.ts`): services know nothing of statuses, headers
 * or JSON:API pointers.
 */
export interface ErrorDetails {
  /**
   * The input the error is about, as the client named it: an attribute (`name`,
   * `default-execution-mode`), a relationship (`relationships.project.id`), a path into the body
   * (`data.attributes.name`, `version.version`) or, for `bad_parameter`, the query parameter
   * (`filter[last-ping-since]`).
   */
  field?: string;
  /** When the client may try again (`rate_limited`, `maintenance`). */
  retryAfterSeconds?: number;
  /** `two_factor_required`: the ways the user can get a code, the default first. */
  deliveryMethods?: readonly string[];
  /** `unauthorized`: the `WWW-Authenticate` challenge to answer with (OAuth2's token endpoint after HTTP Basic). */
  challenge?: string;
}

/**
 * The one error the daemon throws on purpose: a stable code (on the wire), a message that says what to do, and details.
 */
export class AppError extends Error {
  declare readonly field?: string;
  declare readonly retryAfterSeconds?: number;
  declare readonly deliveryMethods?: readonly string[];
  declare readonly challenge?: string;

  constructor(
    readonly code: ErrorCode,
    message: string,
    details: ErrorDetails = {},
  ) {
    super(message);
    this.name = new.target.name;
    if (details.field !== undefined) this.field = details.field;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
    if (details.deliveryMethods !== undefined) this.deliveryMethods = details.deliveryMethods;
    if (details.challenge !== undefined) this.challenge = details.challenge;
  }
}

const make = (code: ErrorCode) =>
  class extends AppError {
    constructor(message: string, details?: ErrorDetails) {
      super(code, message, details);
    }
  };

// One class per code: a throw site names its code by its class (`new NotFoundError(…)`);
// `new AppError(code, …)` only where the code is worked out (the error middleware).
export class BadRequestError extends make('bad_request') {}
export class BadParameterError extends make('bad_parameter') {}
export class UnauthorizedError extends make('unauthorized') {}
export class ForbiddenError extends make('forbidden') {}
export class NotFoundError extends make('not_found') {}
export class MethodNotAllowedError extends make('method_not_allowed') {}
export class MisdirectedError extends make('misdirected') {}
export class HttpsRequiredError extends make('https_required') {}
export class ValidationError extends make('validation') {}
export class ConflictError extends make('conflict') {}
export class PreconditionFailedError extends make('precondition_failed') {}
export class TwoFactorRequiredError extends make('two_factor_required') {}
export class ReauthenticationError extends make('reauthentication_required') {}
export class LastOwnerError extends make('last_owner') {}
export class LastAdminError extends make('last_admin') {}
export class LimitReachedError extends make('limit_reached') {}
export class PayloadTooLargeError extends make('payload_too_large') {}
export class RequestTimeoutError extends make('request_timeout') {}
export class RateLimitedError extends make('rate_limited') {}
export class TooManyConnectionsError extends make('too_many_connections') {}
export class MaintenanceError extends make('maintenance') {}
export class OfflineError extends make('offline') {}
export class UpstreamError extends make('upstream_failed') {}
export class AddressNotAllowedError extends make('address_not_allowed') {}
export class InsufficientStorageError extends make('insufficient_storage') {}
export class InternalError extends make('internal') {}
