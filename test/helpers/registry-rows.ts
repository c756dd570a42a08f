import type { BoxDetail } from '../../daemon/src/registry/details';
import type { ProviderRow } from '../../daemon/src/registry/repository';

/** Rows as the registry reads them, for unit tests of what it serializes (no database). */
const at = '2026-01-01T00:00:00.000Z';

/** A hosted virtualbox/amd64 provider of version `v`, with nothing declared or stored, but `over`. */
export const providerFixture = (over: Partial<ProviderRow>): ProviderRow => ({
  id: 'p',
  version_id: 'v',
  name: 'virtualbox',
  architecture: 'amd64',
  default_architecture: 0,
  url: null,
  checksum: null,
  checksum_type: null,
  blob_sha256: null,
  size: null,
  source_url: null,
  created_at: at,
  updated_at: at,
  ...over,
});

/** The box org/box with one released version 1.0.0 holding `providers`, as the catalog reads it. */
export const boxDetailFixture = (providers: ProviderRow[]): BoxDetail => ({
  box: {
    id: 'b',
    user_id: 'u',
    organization_id: null,
    name: 'box',
    name_key: 'box',
    short_description: 's',
    description: 'd',
    private: 0,
    downloads: 0,
    created_at: at,
    updated_at: at,
    username: 'org',
  },
  versions: [
    {
      version: {
        id: 'v',
        box_id: 'b',
        version: '1.0.0',
        description: '',
        status: 'active',
        mirror_id: null,
        created_at: at,
        updated_at: at,
      },
      providers,
    },
  ],
  shown: 'active',
});
