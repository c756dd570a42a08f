import { describe, expect, it } from 'vitest';
import { catalogDocument, isLegacyVagrant } from './catalog';
import { Urls } from '../../http/urls';
import { boxDetailFixture as detail, providerFixture as provider } from '../../../../test/helpers/registry-rows';

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

describe('catalogDocument for vagrant ≤ 2.3', () => {
  it('falls back to a usable entry when the default architecture has no image yet', () => {
    const doc = catalogDocument(
      'org/box',
      detail([
        provider({ id: 'a', architecture: 'amd64', default_architecture: 1 }),
        provider({ id: 'b', architecture: 'arm64', url: 'https://boxes.example/arm.box' }),
      ]),
      new Urls('http://h'),
      { legacy: true },
    );
    expect(doc.versions[0].providers).toEqual([{ name: 'virtualbox', url: 'https://boxes.example/arm.box' }]);
  });

  it('omits checksum fields when an external provider declares none', () => {
    const doc = catalogDocument(
      'org/box',
      detail([provider({ url: 'https://boxes.example/x.box', default_architecture: 1 })]),
      new Urls('http://h'),
      { legacy: false },
    );
    expect(doc.versions[0].providers[0]).toEqual({
      name: 'virtualbox',
      url: 'https://boxes.example/x.box',
      architecture: 'amd64',
      default_architecture: true,
    });
  });
});

describe('catalogDocument for the pull-through cache', () => {
  const sum = 'a'.repeat(64);
  const cachedOnly = provider({
    id: 'c',
    source_url: 'https://up.example/x.box',
    checksum: sum,
    checksum_type: 'sha256',
    default_architecture: 1,
  });
  it('lists a provider the cache would fetch on demand, with the upstream checksum and a local url', () => {
    const doc = catalogDocument('org/box', detail([cachedOnly]), new Urls('http://h'), { legacy: false });
    expect(doc.versions[0].providers).toEqual([
      {
        name: 'virtualbox',
        url: 'http://h/org/boxes/box/versions/1.0.0/providers/virtualbox/amd64/vagrant.box',
        checksum: sum,
        checksum_type: 'sha256',
        architecture: 'amd64',
        default_architecture: true,
      },
    ]);
  });
  it('held only: leaves out files not stored here, and versions left with none', () => {
    expect(
      catalogDocument('org/box', detail([cachedOnly]), new Urls('http://h'), { legacy: false, heldOnly: true })
        .versions,
    ).toEqual([]);
    const held = provider({ ...cachedOnly, blob_sha256: sum, size: 1 });
    expect(
      catalogDocument('org/box', detail([held]), new Urls('http://h'), { legacy: true, heldOnly: true }).versions[0]
        .providers,
    ).toHaveLength(1);
  });
});
