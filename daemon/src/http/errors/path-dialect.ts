import type { Dialect } from './dialects';

/** First path segments under /api/v2 that belong to the box registry (Vagrant Cloud API v2). */
const BOX_V2_SEGMENTS = new Set(['box', 'boxes', 'search', 'user', 'vagrant', 'authenticate', 'two-factor']);

/** Which error dialect a path speaks: JSON:API for the agent-pools API, Vagrant's otherwise. */
export function dialectFor(path: string): Dialect {
  if (!path.startsWith('/api/v2/') && path !== '/api/v2') return 'box';
  const first = path.slice('/api/v2/'.length).split('/')[0] ?? '';
  return BOX_V2_SEGMENTS.has(first) ? 'box' : 'jsonapi';
}
