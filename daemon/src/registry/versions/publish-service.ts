import type { Namespace } from '../../orgs/service';
import { nameKey } from '../../contract/names';
import type { Clock } from '../../lib/clock';
import type { IdGen } from '../../lib/ids';
import { ConflictError } from '../../lib/errors';
import type { Db } from '../box-query';
import { isUniqueViolation } from '../../store/storage-errors';
import { compareGemVersions } from './gem-version';
import type { BoxRecord, RegistryRepository } from '../repository';
import type { DigestAlgorithm } from '../../blobs/blob-store';
import { followUpstream, type Followed, type UpstreamFields } from './follow-upstream';
import { present } from '../../lib/invariant';

export interface PublishedProvider {
  name: string;
  architecture: string;
  default_architecture: boolean;
  /** A stored, verified file; or null with `source_url` (the cache fetches it on first download). */
  blob: { sha256: string; size: number } | null;
  source_url?: string | null;
  checksum: string | null;
  checksum_type: DigestAlgorithm | null;
}
export interface PublishedVersion {
  version: string;
  description: string;
  providers: PublishedProvider[];
}
export interface PublishInput {
  namespace: Namespace;
  name: string;
  /** Used when the box is created. */
  short_description: string;
  description: string;
  private: boolean;
  versions: PublishedVersion[];
  /**
   * skip: versions that exist are left alone (mirrors, the cache); extend: their new providers
   * are added (imports).
   */
  existing: 'skip' | 'extend';
  /** Released at once (mirrors, the cache), or only when asked (imports). */
  release: boolean;
  mirrorId?: string | null;
  /** A mirror of an upstream with a box API: the box and its versions follow it (follow-upstream.ts). */
  follow?: UpstreamFields;
}
export interface PublishResult {
  box: BoxRecord;
  versions: string[];
  followed?: Followed;
}

/**
 * Writes boxes, versions and providers whose files are already stored, in one transaction, so a
 * box is seen either as it was or with everything published (mirrors, imports, the pull-through
 * cache). Callers authorize; this only keeps the registry's rules.
 */
export class PublishService {
  constructor(
    private readonly repo: RegistryRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  async publish(input: PublishInput): Promise<PublishResult> {
    try {
      return await this.repo.transaction((trx) => this.write(trx, input));
    } catch (e) {
      if (isUniqueViolation(e))
        throw new ConflictError(
          `${input.namespace.name}/${input.name} changed while it was being published; run it again.`,
        );
      throw e;
    }
  }

  private async write(trx: Db, input: PublishInput): Promise<PublishResult> {
    const now = this.clock.now().toISOString();
    let box = await this.repo.boxByName(input.namespace.id, input.name, trx);
    if (!box) {
      const id = this.ids.id('box');
      await this.repo.insertBox(
        {
          id,
          name: input.name,
          name_key: nameKey(input.name),
          user_id: input.namespace.kind === 'user' ? input.namespace.id : null,
          organization_id: input.namespace.kind === 'organization' ? input.namespace.id : null,
          short_description: input.short_description,
          description: input.description,
          private: input.private ? 1 : 0,
          created_at: now,
          updated_at: now,
        },
        trx,
      );
      box = present(
        await this.repo.boxByName(input.namespace.id, input.name, trx),
        `Box ${id} is there when read back just after it was written or found`,
      );
    }
    const written: string[] = [];
    for (const v of input.versions) {
      let version = await this.repo.version(box.id, v.version, trx);
      if (version && input.existing === 'skip') continue;
      if (!version) {
        const id = this.ids.id('ver');
        await this.repo.insertVersion(
          {
            id,
            box_id: box.id,
            version: v.version,
            description: v.description,
            status: 'unreleased',
            mirror_id: input.mirrorId ?? null,
            created_at: now,
            updated_at: now,
          },
          trx,
        );
        version = present(
          await this.repo.version(box.id, v.version, trx),
          `Version ${id} is there when read back just after it was written or found`,
        );
      }
      await this.addProviders(trx, box, version.id, v, now);
      if (input.release && version.status === 'unreleased')
        await this.repo.updateVersion(version.id, { status: 'active', updated_at: now }, trx);
      written.push(v.version);
    }
    if (written.length) await this.repo.updateBox(box.id, { updated_at: now }, trx);
    const followed = input.follow ? await followUpstream(trx, this.repo, box, input.follow, now) : undefined;
    return { box, versions: written, ...(followed ? { followed } : {}) };
  }

  private async addProviders(trx: Db, box: BoxRecord, versionId: string, v: PublishedVersion, now: string) {
    const existing = await this.repo.providersOf([versionId], trx);
    for (const p of v.providers) {
      if (existing.some((e) => e.name === p.name && e.architecture === p.architecture)) {
        throw new ConflictError(
          `Version ${v.version} of ${box.username}/${box.name} already has a provider "${p.name}" for architecture "${p.architecture}". Delete it first.`,
        );
      }
      const row = {
        id: this.ids.id('prov'),
        version_id: versionId,
        name: p.name,
        architecture: p.architecture,
        default_architecture: 0,
        url: null,
        checksum: p.checksum,
        checksum_type: p.checksum_type,
        blob_sha256: p.blob?.sha256 ?? null,
        size: p.blob?.size ?? null,
        source_url: p.source_url ?? null,
        created_at: now,
        updated_at: now,
      };
      await this.repo.insertProvider(row, trx);
      if (p.default_architecture) await this.repo.makeDefault(row, trx);
      await this.repo.ensureDefault(versionId, p.name, null, trx);
    }
  }

  /** The box of that name in the namespace, if any. */
  box(ns: Namespace, name: string): Promise<BoxRecord | undefined> {
    return this.repo.boxByName(ns.id, name);
  }

  /** The box `owner/name`, whoever owns it, in one query. */
  boxAt(owner: string, name: string): Promise<BoxRecord | undefined> {
    return this.repo.boxByPath(owner, name);
  }

  /** Every version number the box has (any state); none when there is no such box. */
  async versionNumbers(ns: Namespace, name: string): Promise<Set<string>> {
    const box = await this.repo.boxByName(ns.id, name);
    return new Set(box ? (await this.repo.versionsOfBox(box.id, 'all')).map((v) => v.version.version) : []);
  }

  /** Retention: deletes the versions `mirrorId` published in the box beyond the newest `keep`. */
  async prune(boxId: string, mirrorId: string, keep: number): Promise<string[]> {
    return this.repo.transaction(async (trx) => {
      const mine = (await this.repo.mirroredVersions(boxId, mirrorId, trx)).sort((a, b) =>
        compareGemVersions(b.version, a.version),
      );
      const drop = mine.slice(keep);
      for (const v of drop) await this.repo.deleteVersion(v.id, trx);
      return drop.map((v) => v.version);
    });
  }

  /**
   * What a mirror last took from the upstream for the box and its versions, to tell what was edited here; undefined:
   * none.
   */
  async followedRecord(box: BoxRecord) {
    const rec = await this.repo.records.box(box.id);
    if (!rec) return undefined;
    return {
      box: rec,
      versions: new Map((await this.repo.records.versions(box.id)).map((v) => [v.version, v.synced])),
    };
  }

  /** The cache fetched a provider's file: point the provider at the stored blob. */
  async attachFetched(providerId: string, blob: { sha256: string; size: number }): Promise<void> {
    await this.repo.updateProvider(providerId, {
      blob_sha256: blob.sha256,
      size: blob.size,
      updated_at: this.clock.now().toISOString(),
    });
  }
}
