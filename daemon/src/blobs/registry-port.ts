import type { Principal } from '../auth/accounts-service';
import type { DigestAlgorithm } from './blob-store';
import type { BlobReferrer } from './holds';

/** A provider named by its box, version, provider name and architecture (the registry's own ref has more). */
export interface ProviderLocator {
  username: string;
  box: string;
  version: string;
  provider: string;
  architecture?: string;
}

/** What uploads need to know of a provider. */
export interface ProviderFile {
  id: string;
  checksum: string | null;
  checksum_type: DigestAlgorithm | null;
}

/**
 * What blobs/ needs from the box registry, which implements it (RegistryService, wired in deps.ts).
 * blobs/ owns this interface, so its arrows point down: it imports nothing of registry/.
 */
export interface RegistryPort extends BlobReferrer {
  /** The provider the caller may read or manage; not found (404) otherwise. */
  resolveProvider(p: Principal, ref: ProviderLocator, need: 'read' | 'manage'): Promise<{ provider: ProviderFile }>;
  /**
   * Whether the user who made an upload URL (by id; null: unknown) may manage the provider's box now, by the rule
   * `manage` applies.
   */
  issuerMayManage(userId: string | null, providerId: string): Promise<boolean>;
  /** Points the provider at a stored blob (the commit of an upload). */
  attachBlob(providerId: string, blob: { sha256: string; size: number }): Promise<void>;
}
