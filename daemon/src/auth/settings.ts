import type { AccountRepository } from './repository';

export interface RuntimeSettings {
  maintenance: boolean;
}

/** Settings changed at run time (from the UI or /api/boxyard/settings), kept in the database. */
export class SettingsService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly defaults: RuntimeSettings,
  ) {}

  async get(): Promise<RuntimeSettings> {
    const m = await this.repo.getSetting('maintenance');
    return { maintenance: m === undefined ? this.defaults.maintenance : m === 'true' };
  }

  async update(patch: Partial<RuntimeSettings>): Promise<RuntimeSettings> {
    if (patch.maintenance !== undefined) await this.repo.setSetting('maintenance', String(patch.maintenance));
    return this.get();
  }
}
