import { z } from 'zod';

/**
 * First path segments the daemon itself uses: a user or organization with one of these names
 * would shadow `/ORG/BOX` catalog URLs or the daemon's own pages.
 */
export const RESERVED_NAMES = new Set([
  'api', 'ui', 'healthz', 'box', 'boxes', 'search', 'user', 'users', 'vagrant', 'authenticate',
  'two-factor', 'organizations', 'assets', 'static', 'upload', 'uploads', 'favicon.ico', 'robots.txt',
  'login', 'logout', 'settings', 'session', 'help', 'docs', 'metrics', 'status',
]);

/** A user or organization name: a URL path segment, unique across users and organizations. */
export const AccountName = z
  .string()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'may contain only letters, numbers, "-", "_" and "." and must start with a letter or number')
  .refine((n) => !RESERVED_NAMES.has(n.toLowerCase()), { message: 'is reserved by Boxyard; choose another name' });
