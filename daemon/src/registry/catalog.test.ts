import { describe, expect, it } from 'vitest';
import { catalogDocument, isLegacyVagrant } from './catalog';
import type { BoxDetail } from './details';
import type { ProviderRow } from './repository';

describe('isLegacyVagrant', () => {
  it.each([
    ['Vagrant/2.3.4 (+https://www.vagrantup.com; ruby3.1.2)', true],
    ['Vagrant/2.0.0', true],
    ['Vagrant/1.9.8', true],
    ['Vagrant/2.4.0 (+https://www.vagrantup.com; ruby3.3.0)', false],
    ['Vagrant/2.10.1', false],
    ['Vagrant/3.0.0', false],
    ['curl/8.5.0', false],
    [undefined, false],
  ])('%s → %s', (ua, legacy) => {
    expect(isLegacyVagrant(ua)).toBe(legacy);
  });
});

const at = '2026-01-01T00:00:00.000Z';
const provider = (over: Partial<ProviderRow>): ProviderRow => ({
  id: 'p', version_id: 'v', name: 'virtualbox', architecture: 'amd64', default_architecture: 0, url: null, checksum: null,
  checksum_type: null, blob_sha256: null, size: null, source_url: null, created_at: at, updated_at: at, ...over,
});
const detail = (providers: ProviderRow[]): BoxDetail => ({
  box: { id: 'b', user_id: 'u', organization_id: null, name: 'box', name_key: 'box', short_description: 's', description: 'd',
    private: 0, downloads: 0, created_at: at, updated_at: at, username: 'org' },
  versions: [{ version: { id: 'v', box_id: 'b', version: '1.0.0', description: '', status: 'active', mirror_id: null, created_at: at, updated_at: at }, providers }],
});

describe('catalogDocument for vagrant ≤ 2.3', () => {
  it('falls back to a usable entry when the default architecture has no image yet', () => {
    const doc = catalogDocument('org/box', detail([
      provider({ id: 'a', architecture: 'amd64', default_architecture: 1 }),
      provider({ id: 'b', architecture: 'arm64', url: 'https://boxes.example/arm.box' }),
    ]), 'http://h', { legacy: true });
    expect(doc.versions[0].providers).toEqual([{ name: 'virtualbox', url: 'https://boxes.example/arm.box' }]);
  });

  it('omits checksum fields when an external provider declares none', () => {
    const doc = catalogDocument('org/box', detail([provider({ url: 'https://boxes.example/x.box', default_architecture: 1 })]), 'http://h', { legacy: false });
    expect(doc.versions[0].providers[0]).toEqual({ name: 'virtualbox', url: 'https://boxes.example/x.box', architecture: 'amd64', default_architecture: true });
  });
});
