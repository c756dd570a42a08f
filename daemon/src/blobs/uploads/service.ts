import type { Readable } from 'node:stream';
import type { Principal } from '../../auth/accounts-service';
import type { Clock } from '../../lib/clock';
import type { IdGen } from '../../lib/ids';
import { sha256Hex, safeEqual } from '../../lib/crypto';
import { ConflictError, ForbiddenError, NotFoundError, PayloadTooLargeError } from '../../lib/errors';
import type { BlobStore, StagedBlob } from '../blob-store';
import type { BlobHolds } from '../holds';
import type { ProviderLocator, RegistryPort } from '../registry-port';
import { explainReceived } from './received-body';
import type { UploadKind } from './tables';
import type { UploadRepository, UploadSessionRow } from './repository';
import type { Metrics } from '../../http/metrics';

/** How often a PUT streaming says so (blobs/collector.ts RECEIVING_STALE_MS is three of these). */
const RECEIVING_BEAT_MS = 60_000;
/** A prepared upload: the secret its PUT URL carries, and the id a direct upload's callback names. */
export interface PreparedUpload {
  secret: string;
  id: string;
}

/** The call that hands out upload URLs, in both APIs that do: each refusal names it. */
const ASK_AGAIN =
  "GET …/provider/PROVIDER/upload on the Vagrant Cloud API, or …/architecture/ARCH/upload (or /direct/upload) on HCP's";
const GONE = `This upload URL is unknown, expired or already used. Ask for a new one: ${ASK_AGAIN}.`;
const REVOKED = `This upload URL was made with an API token that has since been revoked, so it takes no upload. Ask for a new one with a current token: ${ASK_AGAIN}.`;
const NO_LONGER = `The user who made this upload URL may no longer change this box (no longer a member of its organization, or no longer an administrator), so it takes no upload. Someone who may change the box can ask for a new one: ${ASK_AGAIN}.`;
const UNKNOWN_ISSUER = `This upload URL was made by an earlier Boxyard, which did not record who made it, so it takes no upload. Someone who may change the box can ask for a new one: ${ASK_AGAIN}.`;
const SUPERSEDED = 'A newer upload to this URL took over from this one, which was discarded.';

/** A PUT that a newer PUT to the same URL replaced before it was stored. */
class SupersededError extends ConflictError {
  constructor() {
    super(SUPERSEDED);
  }
}

/**
 * Upload sessions: an unguessable URL per request (the secret is the capability, so the PUT needs
 * no token), single-use, expiring after `ttlHours`, and dead once the token that made it is
 * revoked. It acts with the rights of the user who made it as they are when it is used: its PUT
 * is refused, before a byte is read and again before the file is attached, once they may no
 * longer change the box (registry/access.ts); so is a direct upload's callback. A failed PUT leaves the URL usable for
 * a retry; only a stored upload uses it up. A newer PUT takes over from one still receiving (a stalled client must not
 * block the URL until the idle timeout): the older one is stopped and its partial file discarded, and each PUT streams
 * into its own staging folder, so neither can touch the other's bytes.
 */
export class UploadService {
  /** PUTs receiving in this process, by session: how to stop each when a newer one takes over. */
  private readonly receiving = new Map<string, { receiver: string; stop: () => void }>();

  constructor(
    private readonly repo: UploadRepository,
    private readonly blobs: BlobStore,
    private readonly holds: BlobHolds,
    private readonly registry: RegistryPort,
    private readonly clock: Clock,
    private readonly ids: IdGen,
    private readonly limits: { ttlHours: number; directLimitBytes: number },
    private readonly metrics?: Pick<Metrics, 'transferred'>,
  ) {}

  private now = () => this.clock.now().toISOString();

  async prepare(p: Principal, ref: ProviderLocator, kind: UploadKind): Promise<PreparedUpload> {
    const { provider } = await this.registry.resolveProvider(p, ref, 'manage');
    const secret = this.ids.secret(32);
    const id = this.ids.id('upl');
    const now = this.clock.now();
    await this.repo.insert({
      id,
      secret_hash: sha256Hex(secret),
      provider_id: provider.id,
      kind,
      checksum: provider.checksum?.toLowerCase() ?? null,
      checksum_type: provider.checksum_type,
      blob_sha256: null,
      blob_size: null,
      token_id: p?.tokenId || null,
      user_id: p?.user.id ?? null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.limits.ttlHours * 3_600_000).toISOString(),
    });
    return { secret, id };
  }

  /**
   * The upload PUT: streams, verifies and stores the file; a plain upload is attached at once.
   * `accepted` runs once the URL checks out, before the body is read (to send "100 Continue").
   */
  async receive(
    secret: string,
    body: Readable,
    contentLength: number | undefined,
    accepted: () => void = () => {},
  ): Promise<void> {
    const s = await this.liveSession(secret);
    // Refused before a byte is read, and the URL stays open for a plain upload's retry… of a smaller file.
    if (contentLength !== undefined) this.assertDirectFits(s, contentLength);
    // Before "100 Continue" and before the URL is marked busy: a full disk refuses and changes nothing.
    await this.blobs.ensureRoom(contentLength ?? 0);
    const receiver = this.ids.id('put');
    if (!(await this.repo.claim(s.id, receiver, this.now()))) throw new NotFoundError(GONE);
    this.receiving.get(s.id)?.stop();
    // The older PUT's connection is closed (its client, stalled or not, sees it cut off), unless
    // its body is all in: then it finds itself replaced when it settles, and answers so.
    this.receiving.set(s.id, {
      receiver,
      stop: () => {
        if (!body.readableEnded) body.destroy();
      },
    });
    // Still streaming, every minute: a PUT whose daemon died stops saying so, and garbage
    // collection (in whichever daemon leads) opens the URL again (collector.ts).
    // A newer PUT through another daemon took the URL over: this one stops streaming.
    const beat = setInterval(() => {
      this.repo
        .touch(s.id, receiver, this.now())
        .then(() => this.repo.isReceiver(s.id, receiver))
        .then(
          (still) => {
            if (!still && !body.readableEnded) body.destroy();
          },
          () => undefined,
        );
    }, RECEIVING_BEAT_MS);
    beat.unref();
    try {
      accepted();
      const staged = await this.blobs.write(receiver, body, {
        algorithms: s.checksum_type ? [s.checksum_type] : [],
        expectedSize: contentLength,
      });
      this.assertDirectFits(s, staged.size);
      this.verify(s, staged);
      if (!(await this.repo.isReceiver(s.id, receiver))) throw new SupersededError();
      // The body may have streamed for hours: the issuer's rights are looked at again before anything is kept.
      await this.assertIssuer(s);
      // Stored and referenced under a hold: garbage collection of the same content waits or is waited for.
      await this.holds.keep([staged.sha256], async () => {
        const blob = await this.blobs.commit(staged);
        const stored = { blob_sha256: blob.sha256, blob_size: blob.size, updated_at: this.now() };
        if (s.kind === 'plain') {
          // A PUT taking over between the check above and here stores its own whole file after this one.
          await this.registry.attachBlob(s.provider_id, blob);
          await this.repo.settle(s.id, receiver, { state: 'done', ...stored });
        } else if (!(await this.repo.settle(s.id, receiver, { state: 'received', ...stored }))) {
          throw new SupersededError();
        }
      });
      this.metrics?.transferred('upload', staged.size);
    } catch (err) {
      await this.blobs.discard(receiver);
      await this.repo.settle(s.id, receiver, { state: 'open', updated_at: this.now() });
      throw explainReceived(err, 'upload');
    } finally {
      clearInterval(beat);
      if (this.receiving.get(s.id)?.receiver === receiver) this.receiving.delete(s.id);
    }
  }

  /** The direct upload's authenticated callback: points the provider at the stored file. */
  async finishDirect(p: Principal, ref: ProviderLocator, uploadId: string): Promise<void> {
    const { provider } = await this.registry.resolveProvider(p, ref, 'manage');
    const s = await this.repo.byId(uploadId);
    if (!s || s.provider_id !== provider.id || s.kind !== 'direct' || s.state === 'done') {
      throw new NotFoundError(
        `No pending direct upload "${uploadId}" for this provider. Ask for a new direct upload: GET …/upload/direct on the Vagrant Cloud API, …/direct/upload on HCP's.`,
      );
    }
    if (s.state !== 'received' || !s.blob_sha256 || s.blob_size === null) {
      throw new ConflictError(
        "The box file has not been uploaded yet: PUT it to its upload URL first, then finish the upload (the callback, or HCP's …/direct/complete).",
      );
    }
    // The file is the issuer's: it is attached only while they may still change the box.
    await this.assertIssuer(s);
    const blob = { sha256: s.blob_sha256, size: s.blob_size };
    // Under a hold, the session looked at again: garbage collection may have removed it (expired)
    // and its file since it was read; while it is still there, its file is too.
    await this.holds.keep([blob.sha256], async () => {
      if ((await this.repo.byId(s.id))?.state !== 'received')
        throw new NotFoundError(`The direct upload "${uploadId}" expired before its callback. Upload the file again.`);
      await this.registry.attachBlob(provider.id, blob);
      await this.repo.transition(s.id, 'received', { state: 'done', updated_at: this.now() });
    });
  }

  private async liveSession(secret: string): Promise<UploadSessionRow> {
    const s = await this.repo.bySecretHash(sha256Hex(secret));
    if (!s || s.expires_at <= this.now() || s.state === 'received' || s.state === 'done') throw new NotFoundError(GONE);
    await this.assertIssuer(s);
    return s;
  }

  /**
   * The URL's token is not revoked and its issuer may still manage the provider's box, as they
   * are now (the session read again: a PUT may have streamed for hours); else it is refused (403).
   */
  private async assertIssuer(s: UploadSessionRow): Promise<void> {
    const now = (await this.repo.byId(s.id)) ?? s;
    if (now.token_revoked) throw new ForbiddenError(REVOKED);
    if (now.user_id === null) throw new ForbiddenError(UNKNOWN_ISSUER);
    if (!(await this.registry.issuerMayManage(now.user_id, now.provider_id))) throw new ForbiddenError(NO_LONGER);
  }

  /** A direct upload takes at most `directLimitBytes` (config.ts): bigger files go through a plain upload. */
  private assertDirectFits(s: UploadSessionRow, size: number): void {
    const limit = this.limits.directLimitBytes;
    if (s.kind !== 'direct' || size <= limit) return;
    throw new PayloadTooLargeError(
      `This file (${size} bytes) is larger than a direct upload takes (${limit} bytes). Ask for a plain upload URL instead (GET …/upload, not the direct one).`,
    );
  }

  private verify(s: UploadSessionRow, staged: StagedBlob): void {
    if (!s.checksum || !s.checksum_type) return;
    const actual = staged.digests[s.checksum_type] ?? '';
    if (!safeEqual(actual, s.checksum)) {
      throw new ConflictError(
        `Checksum mismatch: the uploaded file's ${s.checksum_type} is ${actual}, but the provider declares ${s.checksum}. The upload was discarded; upload the right file or fix the provider's checksum.`,
      );
    }
  }
}
