import type { Principal } from '../../auth/accounts-service';
import type { Clock } from '../../lib/clock';
import type { IdGen } from '../../lib/ids';
import { ConflictError } from '../../lib/errors';
import type { ProviderRef, RegistryAccess, VersionRef } from '../access';
import type { Db } from '../box-query';
import { isUniqueViolation } from '../../store/storage-errors';
import type { BoxRecord, ProviderRow, RegistryRepository, VersionRow } from '../repository';
import { DEFAULT_ARCHITECTURE, type ProviderInput } from '../schemas';
import { normalizeChecksum } from './checksums';
import { present } from '../../lib/invariant';

export interface ProviderResult {
  box: BoxRecord;
  version: VersionRow;
  provider: ProviderRow;
}
export type NewProvider = ProviderInput & { name: string };

/**
 * Providers of a version, one per name and architecture. Exactly one entry of each name is the
 * default architecture (what API v1 paths and vagrant ≤ 2.3 get): the first one, or the last one
 * marked so.
 */
export class ProviderService {
  constructor(
    private readonly repo: RegistryRepository,
    private readonly access: RegistryAccess,
    private readonly clock: Clock,
    private readonly ids: IdGen,
  ) {}

  private now = () => this.clock.now().toISOString();

  async get(p: Principal, ref: ProviderRef): Promise<ProviderResult> {
    return this.access.provider(p, ref, 'read');
  }

  async create(p: Principal, ref: VersionRef, input: NewProvider): Promise<ProviderResult> {
    const { box, version } = await this.access.version(p, ref, 'manage');
    const architecture = input.architecture ?? DEFAULT_ARCHITECTURE;
    const now = this.now();
    const row = {
      id: this.ids.id('prov'),
      version_id: version.id,
      name: input.name,
      architecture,
      default_architecture: 0,
      url: input.url || null,
      ...normalizeChecksum(input.checksum ?? null, input.checksum_type ?? null),
      created_at: now,
      updated_at: now,
    };
    await this.write(version, input.name, architecture, async (trx) => {
      await this.repo.insertProvider(row, trx);
      if (input.default_architecture) await this.repo.makeDefault(row, trx);
      await this.repo.ensureDefault(version.id, row.name, null, trx);
    });
    return {
      box,
      version,
      provider: present(
        await this.repo.providerById(row.id),
        `Provider ${row.id} is there when read back just after it was written or found`,
      ),
    };
  }

  async update(p: Principal, ref: ProviderRef, input: ProviderInput): Promise<ProviderResult> {
    const { box, version, provider: old } = await this.access.provider(p, ref, 'manage');
    const name = input.name ?? old.name;
    const architecture = input.architecture ?? old.architecture;
    const checksum = normalizeChecksum(
      input.checksum === undefined || input.checksum === null ? old.checksum : input.checksum,
      input.checksum_type === undefined || input.checksum_type === null ? old.checksum_type : input.checksum_type,
    );
    const moved = name !== old.name;
    await this.write(version, name, architecture, async (trx) => {
      await this.repo.updateProvider(
        old.id,
        {
          name,
          architecture,
          ...checksum,
          ...(input.url != null ? { url: input.url || null } : {}),
          ...(moved ? { default_architecture: 0 } : {}),
          updated_at: this.now(),
        },
        trx,
      );
      if (input.default_architecture === true)
        await this.repo.makeDefault({ id: old.id, version_id: version.id, name }, trx);
      if (input.default_architecture === false && !moved && old.default_architecture === 1) {
        await this.repo.updateProvider(old.id, { default_architecture: 0 }, trx);
        await this.repo.ensureDefault(version.id, name, old.id, trx);
      }
      await this.repo.ensureDefault(version.id, name, null, trx);
      if (moved) await this.repo.ensureDefault(version.id, old.name, null, trx);
    });
    return {
      box,
      version,
      provider: present(
        await this.repo.providerById(old.id),
        `Provider ${old.id} is there when read back just after it was written or found`,
      ),
    };
  }

  async delete(p: Principal, ref: ProviderRef): Promise<ProviderResult> {
    const { box, version, provider } = await this.access.provider(p, ref, 'manage');
    await this.repo.transaction(async (trx) => {
      await this.repo.deleteProvider(provider.id, trx);
      await this.repo.ensureDefault(version.id, provider.name, null, trx);
    });
    return { box, version, provider };
  }

  /** One transaction; a second entry with the same name and architecture is a 422. */
  private async write(version: VersionRow, name: string, architecture: string, fn: (trx: Db) => Promise<void>) {
    try {
      await this.repo.transaction(fn);
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      throw new ConflictError(
        `Version ${version.version} already has a provider "${name}" for architecture "${architecture}". Update or delete it instead.`,
      );
    }
  }
}
