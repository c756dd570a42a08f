import type { Acting } from '../auth/accounts-service';
import type { Namespace, OrgService } from '../orgs/service';
import { ConflictError, ForbiddenError, NotFoundError, UnauthorizedError } from '../lib/errors';
import type { BoxRecord, ProviderRow, RegistryRepository, VersionRow, VersionSet } from './repository';

/**
 * `read`: see the box, its released and revoked versions and, for who may manage it, its
 * unreleased ones; `download`: fetch a provider's file, of a released version (of any version,
 * for who may manage the box); `manage`: change it.
 */
export type Need = 'read' | 'download' | 'manage';

/**
 * Whom a namespace or box belongs to, who acts for them, and users recorded by id as they are now (orgs/service.ts).
 */
export type NamespaceOwners = Pick<OrgService, 'namespace' | 'isMember' | 'actsFor' | 'actor'>;

export interface BoxRef {
  username: string;
  box: string;
}
export interface VersionRef extends BoxRef {
  version: string;
}
/**
 * `architecture` undefined: on API v1 paths (gem 3.0.5 knows no architectures) the
 * default-architecture entry of that provider name; on API v2 paths only a name with a single
 * entry, since v2 clients that mean one of several architectures name it.
 */
export interface ProviderRef extends VersionRef {
  provider: string;
  architecture?: string;
  api?: 'v1' | 'v2';
}

/**
 * Who may see and change what. Reads of public boxes need nobody; private boxes are visible to
 * members of the owning namespace only, and everything invisible is "not found" (404), as the spec
 * says. Changes need a token (401) and membership of the namespace (403 when the box is visible).
 * As on Vagrant Cloud, a version not yet released is seen, and the files of versions not released
 * (unreleased or revoked) are downloaded, only by who may manage the box: to anyone else it is
 * the same 404 as a version that does not exist.
 */
export class RegistryAccess {
  constructor(
    private readonly repo: RegistryRepository,
    private readonly orgs: NamespaceOwners,
  ) {}

  private requireCaller(p: Acting, need: Need) {
    if (need === 'manage' && !p)
      throw new UnauthorizedError('Authentication required: send Authorization: Bearer <token>.');
  }

  private forbidden(owner: string): never {
    throw new ForbiddenError(
      `You may not change boxes of "${owner}". Ask an owner of "${owner}" to make you a member.`,
    );
  }

  /** A user or organization, for listing its boxes or creating one in it. */
  async namespace(p: Acting, name: string, need: Need): Promise<{ ns: Namespace; member: boolean }> {
    this.requireCaller(p, need);
    const ns = await this.orgs.namespace(name);
    if (!ns) throw new NotFoundError(`No user or organization is named "${name}".`);
    const member = await this.orgs.isMember(p, ns);
    if (need === 'manage' && !member) this.forbidden(ns.name);
    return { ns, member };
  }

  /** One query for the box; membership is asked only for private boxes and changes. */
  async box(p: Acting, ref: BoxRef, need: Need): Promise<{ box: BoxRecord }> {
    this.requireCaller(p, need);
    const box = await this.repo.boxByPath(ref.username, ref.box);
    const member = box && (box.private === 1 || need === 'manage') ? await this.orgs.actsFor(p, box) : false;
    if (!box || (box.private === 1 && !member)) {
      throw new NotFoundError(
        `Box "${ref.username}/${ref.box}" not found. Check the name, or send a token that may see it.`,
      );
    }
    if (need === 'manage' && !member) this.forbidden(box.username);
    return { box };
  }

  /** Whether the caller may change the box (what the UI offers), without refusing anything. */
  mayManage(p: Acting, box: BoxRecord): Promise<boolean> {
    return this.orgs.actsFor(p, box);
  }

  /**
   * Which of the box's versions the caller sees: every one when they may manage it, else the released and revoked ones.
   */
  async versionsShown(p: Acting, box: BoxRecord): Promise<Exclude<VersionSet, 'active'>> {
    return p && (await this.mayManage(p, box)) ? 'all' : 'published';
  }

  async version(p: Acting, ref: VersionRef, need: Need): Promise<{ box: BoxRecord; version: VersionRow }> {
    const { box } = await this.box(p, ref, need);
    const version = await this.repo.version(box.id, ref.version);
    if (!version || !(await this.shows(p, box, version, need))) {
      throw new NotFoundError(`Box "${box.username}/${box.name}" has no version "${ref.version}".`);
    }
    return { box, version };
  }

  /**
   * A released version is anyone's who may see the box; a revoked one too, but not its files; an unreleased one only
   * its managers'.
   */
  private async shows(p: Acting, box: BoxRecord, version: VersionRow, need: Need): Promise<boolean> {
    if (need === 'manage' || version.status === 'active' || (version.status === 'revoked' && need === 'read'))
      return true;
    return this.mayManage(p, box);
  }

  /**
   * Whether a user recorded by id (an upload URL's issuer) may manage the provider's box now:
   * the rule `manage` applies to callers, with their rights as they stand at this moment.
   */
  async mayStillManage(userId: string | null, providerId: string): Promise<boolean> {
    const provider = await this.repo.providerById(providerId);
    const version = provider && (await this.repo.versionById(provider.version_id));
    const box = version && (await this.repo.boxById(version.box_id));
    return box !== undefined && this.mayManage(await this.orgs.actor(userId), box);
  }

  async provider(
    p: Acting,
    ref: ProviderRef,
    need: Need,
  ): Promise<{ box: BoxRecord; version: VersionRow; provider: ProviderRow }> {
    const { box, version } = await this.version(p, ref, need);
    if (ref.architecture === undefined && ref.api === 'v2')
      await this.assertSingleArchitecture(box, version, ref.provider);
    const provider = await this.repo.provider(version.id, ref.provider, ref.architecture);
    if (!provider) {
      const arch = ref.architecture ? ` for architecture "${ref.architecture}"` : '';
      throw new NotFoundError(
        `Version "${version.version}" of "${box.username}/${box.name}" has no provider "${ref.provider}"${arch}.`,
      );
    }
    return { box, version, provider };
  }

  /**
   * Packer's post-processor cleans up a failed build with `DELETE /api/v2/…/provider/NAME` (no
   * architecture, packer-plugin-vagrant step_create_provider.go): taking that for the default
   * entry would delete another build's released image. An ambiguous v2 path changes nothing.
   */
  private async assertSingleArchitecture(box: BoxRecord, version: VersionRow, name: string) {
    const archs = (await this.repo.providersOf([version.id])).filter((e) => e.name === name).map((e) => e.architecture);
    if (archs.length > 1) {
      throw new ConflictError(
        `Provider "${name}" of ${box.username}/${box.name} ${version.version} has several architectures (${archs.sort().join(', ')}): add the architecture to the path, e.g. …/provider/${name}/${archs[0]}.`,
      );
    }
  }
}
