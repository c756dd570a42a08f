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

/**
 * The key a name is unique and looked up by: two names that differ only in case are one name
 * (users, organizations, boxes, upstreams, workspaces, projects and pools are stored with it).
 */
export const nameKey = (name: string): string => name.toLowerCase();

/**
 * A name that stands as a segment of Boxyard's URL paths (users, organizations, boxes,
 * providers): safe there without escaping. `what` starts each message ("name must …").
 */
export const PathName = (what?: string) => {
  const says = (rule: string) => (what ? `${what} ${rule}` : rule);
  return z.string({ message: says('must be a string') })
    .min(1, says('must not be empty'))
    .max(64, says('must be at most 64 characters'))
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, says('may contain only letters, numbers, "-", "_" and "." and must start with a letter or number'));
};

/** A user or organization name: a URL path segment, unique across users and organizations. */
export const AccountName = PathName()
  .refine((n) => !RESERVED_NAMES.has(nameKey(n)), { message: 'is reserved by Boxyard; choose another name' });
