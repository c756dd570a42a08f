import type { QueryKey } from '@tanstack/react-query';

/**
 * Every query key of the UI, in one place, so a page that caches something and a change that must
 * refresh it cannot spell the key two ways. TanStack Query matches keys by prefix: invalidating
 * `boxes` refreshes every box page, `searches` every search.
 */
export const queryKeys = {
  /** Who is signed in; the only query kept when the session ends. */
  session: ['session'],
  /** The boxes of the user's namespaces: the boxes list's "Mine" pages (api/catalogue.ts), under this key. */
  namespaces: ['namespaces'],
  /** Searches, and the boxes list's "All" pages under this key. */
  searches: ['search'],
  /** Every box page, and under it one box. */
  boxes: ['box'],
  box: (user: string, name: string) => ['box', user, name],
  /** A box page's sizes, downloads and edit right: under the box, so whatever refreshes the box refreshes them. */
  boxStats: (user: string, name: string) => ['box', user, name, 'stats'],

  /** The list and, under it, each organization with its members. */
  organizations: ['organizations'],
  organization: (name: string) => ['organizations', name],
  users: ['users'],
  apiTokens: ['api-tokens'],
  twoFactor: ['two-factor'],
  settings: ['settings'],
  /** The daemon's own CA, to anyone (GET /api/boxyard/ca): the trust step before every command the UI hands out. */
  publicCa: ['public-ca'],
  /** The overview page (GET /api/boxyard/overview). */
  overview: ['overview'],

  pools: (org: string) => ['pools', org],
  /** Agents per status of the listed pools (ids joined), refreshed with the organization's pools. */
  poolStatusCounts: (org: string, poolIds: string) => ['pools', org, 'status-counts', poolIds],
  /** An organization's agent-pool limit and defaults (JSON:API), refreshed with the organization. */
  organizationSettings: (name: string) => ['organizations', name, 'agent-settings'],
  /** An organization's service principals (its owners'), refreshed with the organization. */
  servicePrincipals: (name: string) => ['organizations', name, 'service-principals'],
  pool: (id: string) => ['pool', id],
  agentTokens: (poolId: string) => ['agent-tokens', poolId],
  agents: (poolId: string) => ['agents', poolId],
  workspaces: (org: string) => ['workspaces', org],

  upstreams: ['upstreams'],
  mirrors: ['mirrors'],
  jobs: (mirrorId: string) => ['jobs', mirrorId],
  /** One job, as the Move from HCP Vagrant page follows it. */
  job: (id: string) => ['job', id],
  cache: ['cache'],
} as const satisfies Record<string, QueryKey | ((...args: string[]) => QueryKey)>;

/** What shows a box and must be fetched again when it changes: its page, the box list, search hits. */
export const boxViews = (user: string, name: string): QueryKey[] => [
  queryKeys.box(user, name),
  queryKeys.namespaces,
  queryKeys.searches,
];

/** What a finished mirror job may have changed: boxes anywhere, the cache, the mirrors' state. */
export const mirrorResults: QueryKey[] = [
  queryKeys.mirrors,
  queryKeys.cache,
  queryKeys.upstreams,
  queryKeys.namespaces,
  queryKeys.boxes,
  queryKeys.searches,
];
