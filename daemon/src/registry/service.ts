import type { Kysely } from 'kysely';
import type { Principal } from '../auth/accounts-service';
import type { Database } from '../store/schema';
import { nameKey } from '../contract/names';
import type { Clock } from '../lib/clock';
import type { IdGen } from '../lib/ids';
import { ConflictError, NotFoundError } from '../lib/errors';
import { RegistryAccess, type BoxRef, type Need, type NamespaceOwners, type ProviderRef } from './access';
import { isUniqueViolation } from '../store/storage-errors';
import { loadDetail, loadSummaries, type BoxDetail, type BoxStats, type BoxSummary } from './details';
import type { BoxRecord, ProviderRow, RegistryRepository, VersionRow } from './repository';
import type { SearchFilter } from './search/query';
import { VersionService } from './versions/service';
import { ProviderService } from './providers/service';
import { PublishService } from './versions/publish-service';
import { present } from '../lib/invariant';

export interface NewBox {
  username?: string | null;
  name: string;
  short_description?: string | null;
  description?: string | null;
  is_private?: boolean | null;
}
export interface BoxPatch {
  name?: string | null;
  short_description?: string | null;
  description?: string | null;
  is_private?: boolean | null;
}
export type SearchParams = Omit<SearchFilter, 'visible' | 'offset' | 'mine'> & { page: number };

/** What a caller may find besides public boxes: everything (administrators), or their namespaces' boxes. */
const visibleTo = (p: Principal): SearchFilter['visible'] =>
  p?.user.is_admin ? { all: true } : { userId: p?.user.id ?? null };

/** Boxes, search and namespaces; versions and providers live in their own services. */
export class RegistryService {
  readonly access: RegistryAccess;
  readonly versions: VersionService;
  readonly providers: ProviderService;
  /** Boxes whose files are already stored (mirrors, imports, the pull-through cache), in one transaction. */
  readonly publisher: PublishService;

  constructor(
    private readonly repo: RegistryRepository,
    orgs: NamespaceOwners,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {
    this.access = new RegistryAccess(repo, orgs);
    this.versions = new VersionService(repo, this.access, clock, ids);
    this.providers = new ProviderService(repo, this.access, clock, ids);
    this.publisher = new PublishService(repo, clock, ids);
  }

  private now = () => this.clock.now().toISOString();

  /** A user or organization and the boxes the caller may see in it. */
  async profile(p: Principal, username: string) {
    const { ns, member } = await this.access.namespace(p, username, 'read');
    const boxes = await loadSummaries(this.repo, await this.repo.boxesOf(ns.id, member));
    return { ns, boxes };
  }

  async search(p: Principal, params: SearchParams): Promise<BoxSummary[]> {
    const { page, ...rest } = params;
    const boxes = await this.repo.search({ ...rest, offset: (page - 1) * rest.limit, visible: visibleTo(p) });
    return loadSummaries(this.repo, boxes);
  }

  /**
   * The web UI's box list: a page of search hits or, with `mine`, of the boxes of the caller's own
   * namespaces, released or not; and whether another page follows (one more row is read to know).
   */
  async boxList(
    p: Principal,
    params: SearchParams & { mine: boolean },
  ): Promise<{ boxes: BoxSummary[]; more: boolean }> {
    const { page, mine, ...rest } = params;
    const rows = await this.repo.search({
      ...rest,
      limit: rest.limit + 1,
      offset: (page - 1) * rest.limit,
      visible: visibleTo(p),
      mine: mine && p ? p.user.id : undefined,
    });
    return { boxes: await loadSummaries(this.repo, rows.slice(0, rest.limit)), more: rows.length > rest.limit };
  }

  /** The box with the versions the caller sees (unreleased ones only for who may manage it). */
  async box(p: Principal, ref: BoxRef): Promise<BoxDetail> {
    const { box } = await this.access.box(p, ref, 'read');
    return loadDetail(this.repo, box, await this.access.versionsShown(p, box));
  }

  /** A box by its id, if the caller may see it (HCP's operation wait: registry/hcp/operation-routes.ts). */
  async boxById(p: Principal, id: string): Promise<BoxRecord | undefined> {
    const row = await this.repo.boxById(id);
    if (!row) return undefined;
    try {
      return (await this.access.box(p, { username: row.username, box: row.name }, 'read')).box;
    } catch (e) {
      if (e instanceof NotFoundError) return undefined;
      throw e;
    }
  }

  /** What the web UI's box page shows beyond the box: downloads per provider, and whether the caller may change it. */
  async stats(p: Principal, ref: BoxRef): Promise<BoxStats> {
    const { box } = await this.access.box(p, ref, 'read');
    const mayManage = await this.access.mayManage(p, box);
    const detail = await loadDetail(this.repo, box, mayManage ? 'all' : 'published');
    const downloads = await this.repo.providerDownloads(detail.versions.flatMap((v) => v.providers.map((e) => e.id)));
    const followed = await this.publisher.followedRecord(box);
    return { detail, downloads, mayManage, ...(followed ? { followed } : {}) };
  }

  async createBox(p: Principal, input: NewBox): Promise<BoxDetail> {
    const owner = input.username ?? p?.user.username ?? '';
    const { ns } = await this.access.namespace(p, owner, 'manage');
    await this.assertBoxNameFree(ns.id, input.name);
    const now = this.now();
    const id = this.ids.id('box');
    await this.guardDuplicate(ns.name, input.name, () =>
      this.repo.insertBox({
        id,
        user_id: ns.kind === 'user' ? ns.id : null,
        organization_id: ns.kind === 'organization' ? ns.id : null,
        name: input.name,
        name_key: nameKey(input.name),
        short_description: input.short_description ?? '',
        description: input.description ?? '',
        private: input.is_private === false ? 0 : 1,
        created_at: now,
        updated_at: now,
      }),
    );
    return loadDetail(
      this.repo,
      present(await this.repo.boxById(id), `Box ${id} is there when read back just after it was written or found`),
      'all',
    );
  }

  async updateBox(p: Principal, ref: BoxRef, patch: BoxPatch): Promise<BoxDetail> {
    const { box } = await this.access.box(p, ref, 'manage');
    const ownerId = box.user_id ?? box.organization_id;
    if (ownerId === null) throw new Error(`Box ${box.id} has neither a user nor an organization: every box has one.`);
    if (patch.name != null && nameKey(patch.name) !== box.name_key) await this.assertBoxNameFree(ownerId, patch.name);
    await this.guardDuplicate(box.username, patch.name ?? box.name, () =>
      this.repo.updateBox(box.id, {
        ...(patch.name != null ? { name: patch.name, name_key: nameKey(patch.name) } : {}),
        ...(patch.short_description != null ? { short_description: patch.short_description } : {}),
        ...(patch.description != null ? { description: patch.description } : {}),
        ...(patch.is_private != null ? { private: patch.is_private ? 1 : 0 } : {}),
        updated_at: this.now(),
      }),
    );
    return loadDetail(
      this.repo,
      present(
        await this.repo.boxById(box.id),
        `Box ${box.id} is there when read back just after it was written or found`,
      ),
      'all',
    );
  }

  /** Deletes the box with its versions and providers; answers what was deleted. */
  async deleteBox(p: Principal, ref: BoxRef): Promise<BoxDetail> {
    const { box } = await this.access.box(p, ref, 'manage');
    const detail = await loadDetail(this.repo, box, 'all');
    await this.repo.deleteBox(box.id);
    return detail;
  }

  /** What `vagrant box add` reads: only released versions. */
  async catalog(p: Principal, ref: BoxRef): Promise<BoxDetail> {
    return loadDetail(this.repo, (await this.access.box(p, ref, 'read')).box, 'active');
  }

  private async assertBoxNameFree(ownerId: string, name: string) {
    const existing = await this.repo.boxByName(ownerId, name);
    if (existing)
      throw new ConflictError(
        `A box named "${existing.username}/${existing.name}" already exists. Choose another name.`,
      );
  }

  /** The unique index catches what the check above cannot: two requests racing for one name. */
  private async guardDuplicate(owner: string, name: string, write: () => Promise<void>) {
    try {
      await write();
    } catch (e) {
      if (isUniqueViolation(e))
        throw new ConflictError(`A box named "${owner}/${name}" already exists. Choose another name.`);
      throw e;
    }
  }

  // ---- Contract with the blobs feature (uploads, downloads, garbage collection). ----

  /** A provider the caller may read, download or manage; 404 when missing or invisible, 401/403 for 'manage'. */
  async resolveProvider(
    p: Principal,
    ref: ProviderRef,
    need: Need,
  ): Promise<{ box: BoxRecord; version: VersionRow; provider: ProviderRow }> {
    return this.access.provider(p, ref, need);
  }

  /** Whether the user who made an upload URL may still manage the provider's box now (registry/access.ts). */
  issuerMayManage = (userId: string | null, providerId: string): Promise<boolean> =>
    this.access.mayStillManage(userId, providerId);

  /** Points the provider at a verified, stored blob (one transaction). */
  /** An upload makes the provider hosted: a former external `url` gives way to the stored file. */
  async attachBlob(providerId: string, blob: { sha256: string; size: number }): Promise<void> {
    await this.repo.updateProvider(providerId, {
      blob_sha256: blob.sha256,
      size: blob.size,
      url: null,
      updated_at: this.now(),
    });
  }

  countDownload = (boxId: string, providerId?: string): Promise<void> => this.repo.countDownload(boxId, providerId);
  referencedBlobDigests = (): Promise<Set<string>> => this.repo.referencedBlobDigests();
  referencesBlob = (sha256: string, db: Kysely<Database>): Promise<boolean> => this.repo.referencesBlob(sha256, db);
}
