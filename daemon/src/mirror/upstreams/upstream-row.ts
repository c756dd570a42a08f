import { nameKey } from '../../contract/names';
import type { UpstreamRow } from './repository';
import type { CreateUpstream } from '../schemas';
import { detectKind } from './source';
import { UPSTREAM_DEFAULTS } from '../../contract/bodies/mirror';

/** Whose the upstream is, what it is called, and when it is made: what a row needs beyond its request. */
export interface UpstreamOrigin {
  id: string;
  name: string;
  /** Null: the daemon's own (`--upstream`). */
  createdBy: string | null;
  /** 1: a non-administrator chose the address (outbound.ts's reachFor holds it to the address policy). */
  restricted: number;
  now: Date;
}

/**
 * The one way a request becomes an upstream row: the row UpstreamService.create stores, and the
 * row a dry run reads through (never stored). It has not failed yet.
 */
export function upstreamRow(
  input: CreateUpstream,
  origin: UpstreamOrigin,
): Omit<UpstreamRow, 'owner_admin' | 'owner_name'> {
  const at = origin.now.toISOString();
  return {
    id: origin.id,
    name: origin.name,
    name_key: nameKey(origin.name),
    kind: input.kind ?? detectKind(input.url),
    url: input.url,
    token: input.token ?? null,
    ca: input.ca ?? null,
    timeout_seconds: input.timeout_seconds ?? UPSTREAM_DEFAULTS.timeout_seconds,
    max_failures: input.max_failures ?? UPSTREAM_DEFAULTS.max_failures,
    pause_minutes: input.pause_minutes ?? UPSTREAM_DEFAULTS.pause_minutes,
    failures: 0,
    paused_until: null,
    last_error: null,
    created_by: origin.createdBy,
    restricted: origin.restricted,
    created_at: at,
    updated_at: at,
  };
}
