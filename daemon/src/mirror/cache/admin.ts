import type { Principal } from '../../auth/accounts-service';
import { nameKey } from '../../contract/names';
import { ForbiddenError, NotFoundError } from '../../lib/errors';
import type { RegistryService } from '../../registry/service';
import type { CacheRepository } from './repository';

/**
 * The pull-through cache's size and its purge. A purge deletes the cached boxes (versions,
 * providers, the cache's record) through the registry, as deleting them by hand would; the files
 * stay until garbage collection finds no provider pointing at them, so no row ever points at a
 * missing file. A purged box is fetched again from its upstream on its next use.
 */
export class CacheAdmin {
  constructor(
    private readonly repo: CacheRepository,
    private readonly registry: Pick<RegistryService, 'deleteBox'>,
  ) {}

  size() {
    return this.repo.cacheSize();
  }

  /** Every cached box, or only `tag` (ORG/BOX). Administrators only: it empties what a whole lab uses. */
  async purge(p: NonNullable<Principal>, tag?: string): Promise<{ boxes: string[]; bytes: number }> {
    if (!p.user.is_admin) throw new ForbiddenError('Only administrators may purge the pull-through cache.');
    const before = await this.repo.cacheSize();
    const rows = (await this.repo.cachedBoxes()).flatMap(({ username, name }) =>
      username && (!tag || nameKey(`${username}/${name}`) === nameKey(tag)) ? [{ username, box: name }] : [],
    );
    if (tag && rows.length === 0)
      throw new NotFoundError(`The pull-through cache holds no box "${tag}".`, { field: 'box' });
    const boxes: string[] = [];
    for (const r of rows) {
      await this.registry.deleteBox(p, r);
      boxes.push(`${r.username}/${r.box}`);
    }
    return { boxes, bytes: before.bytes - (await this.repo.cacheSize()).bytes };
  }
}
