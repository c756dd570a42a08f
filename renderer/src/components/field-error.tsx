import { ApiError } from '../api/client';
import type { ErrorCode } from '../../../daemon/src/contract/error-codes';

/**
 * What to tell someone whose change was refused, chosen by the API's error code. Codes whose
 * message names the problem itself (validation, conflict, …) show the daemon's message.
 */
const WORDS: Partial<Record<ErrorCode, string>> = {
  unauthorized: 'Your session has ended: sign in again to make changes.',
  forbidden: 'You may not change this: only members of its owner (and administrators) may.',
  not_found: 'It no longer exists, or you may no longer see it: reload the page.',
  maintenance: 'The daemon is in maintenance mode: changes are refused until it is switched off.',
  rate_limited: 'Too many requests just now: wait a minute and try again.',
  payload_too_large: 'That is too long to save.',
};

export function errorWords(error: unknown): string {
  const words = error instanceof ApiError && error.code ? WORDS[error.code] : undefined;
  if (words) return words;
  return error instanceof Error ? error.message : String(error);
}

/** A refused change in words, right beside the control that made it (`id` for aria-describedby). */
export function FieldError({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  return (
    <p className="error field-error" role="alert" id={id}>
      {errorWords(error)}
    </p>
  );
}
