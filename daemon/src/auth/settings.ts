import { ConflictError, NotFoundError, ValidationError } from '../lib/errors';
import { isAllowedHostEntry } from '../lib/address-policy';
import type { RuntimeSettingsJson } from '../contract/wire/accounts';
import type { AccountRepository } from './repository';

const KEYS = [
  'maintenance',
  'offline',
  'pull_through_upstream_id',
  'cache_max_age_minutes',
  'mirror_allowed_hosts',
] as const;

export type SettingsPatch = Partial<Omit<RuntimeSettingsJson, 'offline_forced'>>;

export interface SettingsDefaults {
  maintenance: boolean;
  /** --offline: forced on for this run. */
  offline: boolean;
}

/** Settings changed at run time (from the UI or /api/boxyard/settings), kept in the database. */
export class SettingsService {
  constructor(
    private readonly repo: AccountRepository,
    private readonly defaults: SettingsDefaults,
    /** Whether an id names an upstream (the mirror feature's). */
    private readonly upstreamExists: (id: string) => Promise<boolean>,
  ) {}

  /** The last stored map read and what it made (the map is kept until the settings change). */
  private last?: { stored: ReadonlyMap<string, string>; settings: Readonly<RuntimeSettingsJson> };

  /** The settings when what they were made from is still in memory and unchanged, else undefined (then get()). */
  current(): Readonly<RuntimeSettingsJson> | undefined {
    const stored = this.repo.peekSettings();
    return stored !== undefined && this.last?.stored === stored ? this.last.settings : undefined;
  }

  async get(): Promise<Readonly<RuntimeSettingsJson>> {
    // Every request reads these (the maintenance switch) before it is routed: from memory.
    const stored = await this.repo.getSettings();
    if (this.last?.stored === stored) return this.last.settings;
    const [m, o, u, age, hosts] = KEYS.map((k) => stored.get(k));
    const settings = Object.freeze({
      maintenance: m === undefined ? this.defaults.maintenance : m === 'true',
      offline: this.defaults.offline || o === 'true',
      offline_forced: this.defaults.offline,
      pull_through_upstream_id: u || null,
      cache_max_age_minutes: age === undefined ? 30 : Number(age),
      mirror_allowed_hosts: Object.freeze(hosts ? (JSON.parse(hosts) as string[]) : []) as string[],
    });
    this.last = { stored, settings };
    return settings;
  }

  /** Whether the daemon may open outbound connections right now. */
  async isOffline(): Promise<boolean> {
    return this.defaults.offline || (await this.repo.getSetting('offline')) === 'true';
  }

  async update(patch: SettingsPatch): Promise<Readonly<RuntimeSettingsJson>> {
    if (patch.offline === false && this.defaults.offline) {
      throw new ConflictError(
        'The daemon was started with --offline (or BOXYARD_OFFLINE): restart it without to go online.',
      );
    }
    if (patch.pull_through_upstream_id && !(await this.upstreamExists(patch.pull_through_upstream_id))) {
      throw new NotFoundError(
        `No upstream "${patch.pull_through_upstream_id}". Create it with POST /api/boxyard/upstreams first.`,
      );
    }
    const badHost = patch.mirror_allowed_hosts?.find((h) => !isAllowedHostEntry(h));
    if (badHost !== undefined) {
      throw new ValidationError(
        `"${badHost}" in mirror_allowed_hosts is not an address, a network (10.0.0.0/8), a host name or *.domain.`,
        { field: 'settings.mirror_allowed_hosts' },
      );
    }
    if (patch.maintenance !== undefined) await this.repo.setSetting('maintenance', String(patch.maintenance));
    if (patch.offline !== undefined) await this.repo.setSetting('offline', String(patch.offline));
    if (patch.pull_through_upstream_id !== undefined)
      await this.repo.setSetting('pull_through_upstream_id', patch.pull_through_upstream_id ?? '');
    if (patch.cache_max_age_minutes !== undefined)
      await this.repo.setSetting('cache_max_age_minutes', String(patch.cache_max_age_minutes));
    if (patch.mirror_allowed_hosts !== undefined)
      await this.repo.setSetting('mirror_allowed_hosts', JSON.stringify(patch.mirror_allowed_hosts));
    return this.get();
  }
}
