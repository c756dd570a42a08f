import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/errors';
import { Urls } from '../../http/urls';
import { catalogDocument } from '../catalog/catalog';
import { advertisedChecksum, normalizeChecksum } from './checksums';
import type { ProviderRow } from '../repository';
import { providerJson } from '../serialize';
import { boxDetailFixture, providerFixture as provider } from '../../../../test/helpers/registry-rows';

const SHA1 = '1'.repeat(40);
const STORED = 'e'.repeat(64);
const detail = (p: ProviderRow) => boxDetailFixture([p]);

describe('advertisedChecksum: which checksum a provider shows', () => {
  it.each([
    [
      'a stored hosted file: the computed sha256, over a declared one',
      { checksum: SHA1, checksum_type: 'sha1', blob_sha256: STORED, size: 1 },
      { checksum: STORED, checksum_type: 'sha256' },
    ],
    [
      'a stored hosted file without a declared checksum: the computed sha256',
      { blob_sha256: STORED, size: 1 },
      { checksum: STORED, checksum_type: 'sha256' },
    ],
    [
      'a hosted provider not uploaded yet: the declared checksum',
      { checksum: SHA1, checksum_type: 'sha1' },
      { checksum: SHA1, checksum_type: 'sha1' },
    ],
    [
      'an external url: the declared checksum',
      { url: 'https://boxes.example/a.box', checksum: SHA1, checksum_type: 'sha1' },
      { checksum: SHA1, checksum_type: 'sha1' },
    ],
    ['an external url with none declared: none', { url: 'https://boxes.example/a.box' }, undefined],
    ['nothing declared or stored: none', {}, undefined],
  ] as const)('%s', (_, over, want) => {
    expect(advertisedChecksum(provider(over as Partial<ProviderRow>))).toEqual(want);
  });

  it('is the same in the vagrant catalog and in the API', () => {
    const p = provider({ checksum: SHA1, checksum_type: 'sha1', blob_sha256: STORED, size: 1 });
    const entry = catalogDocument('org/box', detail(p), new Urls('http://h'), { legacy: false }).versions[0]
      .providers[0];
    const json = providerJson(detail(p).box, detail(p).versions[0].version, p, {
      urls: new Urls('http://h'),
      api: 'v2',
    });
    expect({ checksum: entry.checksum, checksum_type: entry.checksum_type }).toEqual({
      checksum: STORED,
      checksum_type: 'sha256',
    });
    expect({ checksum: json.checksum, checksum_type: json.checksum_type }).toEqual({
      checksum: STORED,
      checksum_type: 'sha256',
    });
  });
});

describe('normalizeChecksum', () => {
  it('lower-cases the digest and its type', () => {
    expect(normalizeChecksum(STORED.toUpperCase(), 'SHA256')).toEqual({ checksum: STORED, checksum_type: 'sha256' });
  });
  it('drops a type sent without a checksum', () => {
    expect(normalizeChecksum('', 'sha256')).toEqual({ checksum: null, checksum_type: null });
  });
  it.each([
    [SHA1, 'crc32', /checksum_type must be one of md5, sha1, sha256, sha384, sha512/],
    [SHA1, null, /checksum_type must be one of/],
    [SHA1, 'sha256', /64 hexadecimal/],
    ['z'.repeat(32), 'md5', /32 hexadecimal/],
  ])('refuses %s of type %s', (sum, type, message) => {
    expect(() => normalizeChecksum(sum, type)).toThrow(ValidationError);
    expect(() => normalizeChecksum(sum, type)).toThrow(message);
  });
});
