import { z } from 'zod';

/**
 * What may stand in a segment of Boxyard's URLs: account, box and provider names, and box version
 * numbers. The daemon holds every name to these rules (bodies, paths, what an upstream sends);
 * the web UI may check a form against the same ones. Pure (zod only).
 */

/**
 * First path segments the daemon itself uses: a user or organization with one of these names
 * would shadow `/ORG/BOX` catalog URLs or the daemon's own pages.
 */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  'api',
  'ui',
  'healthz',
  'box',
  'boxes',
  'search',
  'user',
  'users',
  'vagrant',
  'authenticate',
  'two-factor',
  'organizations',
  'assets',
  'static',
  'upload',
  'uploads',
  'favicon.ico',
  'robots.txt',
  'login',
  'logout',
  'settings',
  'session',
  'help',
  'docs',
  'metrics',
  'status',
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
  return z
    .string({ message: says('must be a string') })
    .min(1, says('must not be empty'))
    .max(64, says('must be at most 64 characters'))
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_.-]*$/,
      says('may contain only letters, numbers, "-", "_" and "." and must start with a letter or number'),
    );
};

/**
 * A user or organization name: a URL path segment, unique across users and organizations. Its
 * description is the rule in words, which the web UI shows under the field before anything is typed.
 */
export const AccountName = PathName()
  .refine((n) => !RESERVED_NAMES.has(nameKey(n)), {
    message: 'is reserved by Boxyard; choose another name',
  })
  .describe(
    'Up to 64 letters, numbers, "-", "_" and ".", starting with a letter or number. Users and organizations share one set of names.',
  );

/**
 * Ruby Gem versions, because vagrant parses every catalog version with `Gem::Version.new` and
 * fails on anything else (`v1.0` is rejected; `1.0.0-beta` and `1.0.0.rc1` are fine). How they
 * compare: daemon/src/registry/versions/gem-version.ts.
 */
const GEM_VERSION = /^[0-9]+(?:\.[0-9a-zA-Z]+)*(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export const MAX_VERSION_LENGTH = 64;

export function isGemVersion(v: string): boolean {
  return v.length <= MAX_VERSION_LENGTH && GEM_VERSION.test(v);
}
