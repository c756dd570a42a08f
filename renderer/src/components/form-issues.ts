import type { z } from 'zod';
import { ApiError } from '../api/client';
import type { ErrorCode } from '../../../daemon/src/contract/error-codes';

/**
 * Forms that show the API's rules before anything is typed, and say what is wrong beside the
 * field at fault. The rules are the contract's (`daemon/src/contract/bodies/*`, `names.ts`): a
 * field's hint is its schema's description, written beside the rule there; a body is checked
 * against the same schema the daemon validates with before it is sent, and each issue lands on
 * the field its path names. Nothing here restates a rule.
 */

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
  reauthentication_required:
    'Your current password (or a code from your two-factor app) is missing or wrong: nothing was changed.',
};

export function errorWords(error: unknown): string {
  const words = error instanceof ApiError && error.code ? WORDS[error.code] : undefined;
  if (words) return words;
  return error instanceof Error ? error.message : String(error);
}

interface Described {
  description?: string;
  unwrap?: () => unknown;
}

/** The words beside a field's rule in the contract (`.describe()`), through `.optional()` and `.nullable()`. */
export function hintOf(schema: unknown): string | undefined {
  let s = schema as Described | undefined;
  for (let depth = 0; s && depth < 4; depth++) {
    if (s.description) return s.description;
    s = typeof s.unwrap === 'function' ? (s.unwrap() as Described) : undefined;
  }
  return undefined;
}

/** A field's problem, by the body path the daemon would name (`organization.name`). */
export type FieldIssues = Record<string, string>;

/** "may contain only…" → "May contain only…": a zod message as a sentence of its own beside the field. */
const sentence = (message: string): string => message.charAt(0).toUpperCase() + message.slice(1);

/** What is wrong with `body` by the contract's `schema`, field by field; null when nothing is. */
export function issuesOf(schema: z.ZodType, body: unknown): FieldIssues | null {
  const r = schema.safeParse(body);
  if (r.success) return null;
  const issues: FieldIssues = {};
  for (const issue of r.error.issues) {
    const path = issue.path.map(String).join('.');
    issues[path] ??= sentence(issue.message);
  }
  return issues;
}

/**
 * Thrown by a form's action when its body breaks a contract rule: nothing was sent. Each field
 * shows its own issue (`issueAt`); a form-wide note has nothing left to say.
 */
export class FormIssues extends Error {
  constructor(readonly issues: FieldIssues) {
    super('Some fields need a change: see the words beside them.');
  }
}

/** Checks `body` against `schema` and throws FormIssues when it breaks a rule; returns it unchanged otherwise. */
export function checked<T>(schema: z.ZodType, body: T): T {
  const issues = issuesOf(schema, body);
  if (issues) throw new FormIssues(issues);
  return body;
}

/**
 * What to say beside the field at `path`: its contract issue, or the daemon's refusal when `owns`
 * says this field is the one at fault (a name taken is the name's, a wrong current password the
 * current password's).
 */
export function issueAt(error: unknown, path: string, owns?: (error: unknown) => boolean): string | undefined {
  if (error instanceof FormIssues) return error.issues[path];
  return error && owns?.(error) ? errorWords(error) : undefined;
}

/** A form-wide note for what no field owns: nothing for contract issues (each field says its own). */
export const formError = (error: unknown, owned?: (error: unknown) => boolean): unknown =>
  error instanceof FormIssues || (error && owned?.(error)) ? null : error;
