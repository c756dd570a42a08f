import type { Principal } from '../../auth/accounts-service';
import type { Clock } from '../../lib/clock';
import type { IdGen } from '../../lib/ids';
import { ConflictError, NotFoundError } from '../../lib/errors';
import type { RegistryAccess, VersionRef } from '../access';
import { isUniqueViolation } from '../../store/storage-errors';
import { isUsable, loadVersion, type VersionDetail } from '../details';
import type { BoxRecord, RegistryRepository, VersionRow } from '../repository';

export interface VersionResult {
  box: BoxRecord;
  version: VersionDetail;
}

/** Versions and their lifecycle: unreleased → active (release) → revoked (revoke). */
export class VersionService {
  constructor(
    private readonly repo: RegistryRepository,
    private readonly access: RegistryAccess,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  private now = () => this.clock.now().toISOString();

  private async result(box: BoxRecord, versionId: string): Promise<VersionResult> {
    const row = await this.repo.versionById(versionId);
    // Deleted by a request that ran at the same time (a release racing a delete of the version).
    if (!row)
      throw new NotFoundError(`The version was deleted from ${box.username}/${box.name} while this request ran.`);
    return { box, version: await loadVersion(this.repo, row) };
  }

  async get(p: Principal, ref: VersionRef): Promise<VersionResult> {
    const { box, version } = await this.access.version(p, ref, 'read');
    return { box, version: await loadVersion(this.repo, version) };
  }

  async create(
    p: Principal,
    ref: Omit<VersionRef, 'version'>,
    input: { version: string; description?: string | null },
  ): Promise<VersionResult> {
    const { box } = await this.access.box(p, ref, 'manage');
    const now = this.now();
    const row: VersionRow = {
      id: this.ids.id('ver'),
      box_id: box.id,
      version: input.version,
      description: input.description ?? '',
      status: 'unreleased',
      mirror_id: null,
      created_at: now,
      updated_at: now,
    };
    await this.guardDuplicate(box, input.version, () => this.repo.insertVersion(row));
    return { box, version: { version: row, providers: [] } };
  }

  async update(
    p: Principal,
    ref: VersionRef,
    patch: { version?: string | null; description?: string | null },
  ): Promise<VersionResult> {
    const { box, version } = await this.access.version(p, ref, 'manage');
    const rename = patch.version != null && patch.version !== version.version ? patch.version : undefined;
    await this.guardDuplicate(box, rename ?? version.version, () =>
      this.repo.updateVersion(version.id, {
        ...(rename ? { version: rename } : {}),
        ...(patch.description != null ? { description: patch.description } : {}),
        updated_at: this.now(),
      }),
    );
    return this.result(box, version.id);
  }

  async delete(p: Principal, ref: VersionRef): Promise<VersionResult> {
    const { box, version } = await this.access.version(p, ref, 'manage');
    const detail = await loadVersion(this.repo, version);
    await this.repo.deleteVersion(version.id);
    return { box, version: detail };
  }

  /** Needs a provider with a usable image; a version is released once, and never after a revoke. */
  async release(p: Principal, ref: VersionRef): Promise<VersionResult> {
    const { box, version } = await this.access.version(p, ref, 'manage');
    const label = `Version ${version.version} of ${box.username}/${box.name}`;
    if (version.status === 'active') throw new ConflictError(`${label} has already been released.`);
    if (version.status === 'revoked')
      throw new ConflictError(`${label} was revoked and cannot be released again. Create a new version.`);
    const { providers } = await loadVersion(this.repo, version);
    if (!providers.some(isUsable)) {
      throw new ConflictError(
        `${label} cannot be released: it needs at least one provider with an uploaded box file or a url.`,
      );
    }
    if (!(await this.repo.transitionVersion(version.id, 'unreleased', 'active', this.now()))) {
      throw new ConflictError(`${label} has already been released.`);
    }
    return this.result(box, version.id);
  }

  /** Only a released (active) version can be revoked. */
  async revoke(p: Principal, ref: VersionRef): Promise<VersionResult> {
    const { box, version } = await this.access.version(p, ref, 'manage');
    const label = `Version ${version.version} of ${box.username}/${box.name}`;
    if (!(await this.repo.transitionVersion(version.id, 'active', 'revoked', this.now()))) {
      const why = version.status === 'revoked' ? 'has already been revoked' : 'has not been released';
      throw new ConflictError(`${label} ${why}: only active versions can be revoked.`);
    }
    return this.result(box, version.id);
  }

  private async guardDuplicate(box: BoxRecord, version: string, write: () => Promise<void>) {
    const duplicate = () => new ConflictError(`Version ${version} of ${box.username}/${box.name} already exists.`);
    try {
      await write();
    } catch (e) {
      if (isUniqueViolation(e)) throw duplicate();
      throw e;
    }
  }
}
