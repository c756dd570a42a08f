import { LRUCache } from 'lru-cache';
import { sha256Hex } from '../lib/crypto';

/**
 * Hashes of recently presented secrets (API tokens, session cookies, agent tokens): every
 * authenticated request hashes its secret, and at 1,000 agent reports a second the hash cost more
 * than the cached lookup it keys. Bounded: the secret presented longest ago goes first. Lookups are
 * by equality in SQL (an index), so no comparison of secrets happens in JavaScript. One per service
 * that takes secrets.
 */
export class PresentedSecrets {
  private readonly hashes = new LRUCache<string, string>({ max: 1000, memoMethod: (secret) => sha256Hex(secret) });

  hashOf(secret: string): string {
    return this.hashes.memo(secret);
  }
}

/**
 * Whether a token's last use is worth writing: to the minute, for API and agent tokens alike, since
 * 1,000 agents (or a busy client) would otherwise write it on every request.
 */
export function lastUseIsStale(lastUsedAt: string | null, now: Date): boolean {
  return !lastUsedAt || now.getTime() - Date.parse(lastUsedAt) > 60_000;
}
