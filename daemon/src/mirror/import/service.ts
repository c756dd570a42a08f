import { pipeline, type Readable } from 'node:stream';
import type { Principal } from '../../auth/accounts-service';
import type { Namespace } from '../../orgs/service';
import type { BlobRef, BlobStore, DigestAlgorithm, StagedBlob } from '../../blobs/blob-store';
import { explainReceived } from '../../blobs/uploads/received-body';
import type { BlobHolds } from '../../blobs/holds';
import { ConflictError, ValidationError } from '../../lib/errors';
import type { IdGen } from '../../lib/ids';
import { safeEqual } from '../../lib/crypto';
import { isGemVersion } from '../../contract/names';
import { BoxName, isArchitecture } from '../../contract/bodies/registry';
import type { ImportResultJson } from '../../contract/wire/mirror';
import { architectureOf, architectureRefusal, providerRefusal } from '../../contract/box-metadata';
import { normalizeChecksum } from '../../registry/providers/checksums';
import type { RegistryService } from '../../registry/service';
import { boxMetadataTap, type BoxMetadata } from './box-metadata';

/** What the import needs from the registry: authorization and the one-transaction publisher. */
export type RegistryForImport = Pick<RegistryService, 'access' | 'publisher'>;

/** `PUT /api/boxyard/import/:username/:box/:version` as the wire gives it (docs/mirroring.md). */
export interface ImportRequest {
  username: string;
  box: string;
  version: string;
  provider?: string;
  architecture?: string;
  checksum?: string;
  checksum_type?: string;
  release: boolean;
  private: boolean;
}

interface Checked extends ImportRequest {
  checksum_value: string | null;
  checksum_algorithm: DigestAlgorithm | null;
}

/** Provider names follow the same rule as box names (registry/schemas.ts). */
function checkName(value: string, what: string): void {
  const r = BoxName.safeParse(value);
  if (!r.success)
    throw new ValidationError(`${what} "${value}" is not valid: ${r.error.issues[0]?.message.replace(/^name /, '')}.`);
}

/** Everything in the path and query, checked before a byte of the body is read. */
function checkRequest(req: ImportRequest): Checked {
  checkName(req.box, 'Box name');
  if (!isGemVersion(req.version))
    throw new ValidationError(
      `Version "${req.version}" must be a Ruby Gem version such as 1.0.0 or 1.0.0-beta (no leading "v").`,
    );
  if (req.provider !== undefined) checkName(req.provider, 'Provider');
  if (req.architecture !== undefined && !isArchitecture(req.architecture))
    throw new ValidationError(`Architecture "${req.architecture}" is not one vagrant knows; use e.g. amd64 or arm64.`);
  const sum = normalizeChecksum(req.checksum ?? null, req.checksum_type ?? null);
  return { ...req, checksum_value: sum.checksum, checksum_algorithm: sum.checksum_type };
}

/**
 * Imports one `.box` file sent as a request body: stores it like an upload (verified, content
 * addressed), reads its provider and architecture from its metadata.json in the same pass, and
 * publishes it as a provider of the version, creating the box and version when missing.
 */
export class ImportService {
  constructor(
    private readonly registry: RegistryForImport,
    private readonly blobs: BlobStore,
    private readonly holds: BlobHolds,
    private readonly ids: IdGen,
  ) {}

  async import(
    p: Principal,
    req: ImportRequest,
    body: Readable,
    declaredSize: number | undefined,
  ): Promise<ImportResultJson> {
    const input = checkRequest(req);
    const { ns } = await this.registry.access.namespace(p, input.username, 'manage');
    await this.blobs.ensureRoom(declaredSize ?? 0);
    const { staged, provider, architecture } = await this.receive(input, body, declaredSize);
    // Stored and published under a hold: garbage collection of the same content waits or is waited for.
    return this.holds.keep([staged.sha256], async () => {
      const blob = await this.blobs.commit(staged).catch(async (err: unknown) => {
        await this.blobs.discard(staged.uploadId);
        throw explainReceived(err, 'import');
      });
      return this.publish(p, ns, input, blob, provider, architecture);
    });
  }

  /** Stages and verifies the body; anything wrong discards it and leaves no file behind. */
  private async receive(input: Checked, body: Readable, declaredSize: number | undefined) {
    const stagingId = this.ids.id('imp');
    // Both given: the query says what the file is, so its metadata.json is not needed (vagrant
    // unpacks zip or xz boxes too, which this reader does not).
    const reading = input.provider && input.architecture ? null : boxMetadataTap();
    try {
      const source = reading ? pipeline(body, reading.tap, () => {}) : body;
      const staged = await this.blobs.write(stagingId, source, {
        algorithms: input.checksum_algorithm ? [input.checksum_algorithm] : [],
        expectedSize: declaredSize,
      });
      this.verify(input, staged);
      const { provider, architecture } = this.describe(
        input,
        reading ? await reading.metadata.catch((e: Error) => e) : {},
      );
      return { staged, provider, architecture };
    } catch (err) {
      await this.blobs.discard(stagingId);
      throw explainReceived(err, 'import');
    }
  }

  private verify(input: Checked, staged: StagedBlob): void {
    if (!input.checksum_value || !input.checksum_algorithm) return;
    const actual = staged.digests[input.checksum_algorithm] ?? '';
    if (!safeEqual(actual, input.checksum_value)) {
      throw new ConflictError(
        `Checksum mismatch: the imported file's ${input.checksum_algorithm} is ${actual}, but ${input.checksum_value} was declared. The file was discarded; send the right file or fix the checksum.`,
      );
    }
  }

  /**
   * Provider and architecture: the query's, else the box's metadata.json's as the contract reads it
   * (contract/box-metadata.ts, as the web UI's file form does), an unnamed architecture being UNSTATED_ARCHITECTURE.
   */
  private describe(input: Checked, meta: BoxMetadata | Error): { provider: string; architecture: string } {
    const found = meta instanceof Error ? {} : meta;
    const provider = input.provider ?? found.provider;
    if (!provider) {
      const why = meta instanceof Error ? meta.message : "The file's metadata.json names no provider.";
      throw new ValidationError(
        `${why} Send a .box file (a tar or gzipped tar with metadata.json), or name the provider with ?provider=.`,
      );
    }
    const refused =
      (input.provider ? null : providerRefusal(provider)) ??
      (input.architecture || found.architecture === undefined ? null : architectureRefusal(found.architecture));
    if (refused) throw new ValidationError(`${refused} Name it with ?provider= or ?architecture=.`);
    return { provider, architecture: input.architecture ?? architectureOf(found) };
  }

  private async publish(
    p: Principal,
    ns: Namespace,
    input: Checked,
    blob: BlobRef,
    provider: string,
    architecture: string,
  ): Promise<ImportResultJson> {
    const { box } = await this.registry.publisher.publish({
      namespace: ns,
      name: input.box,
      short_description: '',
      description: '',
      private: input.private,
      versions: [
        {
          version: input.version,
          description: '',
          providers: [
            {
              name: provider,
              architecture,
              default_architecture: false,
              blob,
              checksum: input.checksum_value,
              checksum_type: input.checksum_algorithm,
            },
          ],
        },
      ],
      existing: 'extend',
      release: input.release,
    });
    // An import into a version that was already released leaves it released.
    const { version } = await this.registry.access.version(
      p,
      { username: box.username, box: box.name, version: input.version },
      'read',
    );
    return {
      box: `${box.username}/${box.name}`,
      version: version.version,
      provider,
      architecture,
      sha256: blob.sha256,
      size: blob.size,
      released: version.status === 'active',
    };
  }
}
