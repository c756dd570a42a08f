import { basename } from 'node:path';
import type { Principal } from '../../auth/accounts-service';
import type { UserRow } from '../../auth/repository';
import { nameKey } from '../../contract/names';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors';
import type { Clock } from '../../lib/clock';
import type { IdGen } from '../../lib/ids';
import { isUniqueViolation } from '../../store/storage-errors';
import type { MirrorRepository, UpstreamRow } from '../repository';
import type { CreateUpstream, UpdateUpstream } from '../schemas';
import { detectKind, isRemote } from './source';
import type { Outbound } from './outbound';

/** Scheme, host and port: a token follows its upstream only to the same origin. */
const originOf = (url: string): string | null => (isRemote({ url }) ? new URL(url).origin : null);

type Caller = NonNullable<Principal>;

/** An upstream set by a non-administrator reaches only allowed addresses; the daemon's own and administrators' any. */
const restrictedFor = (p: Caller | null): number => (p && !p.user.is_admin ? 1 : 0);

/**
 * Whether a user may read through the upstream (a mirror's run does, with the rights of the user
 * it runs as): an administrator any; anyone else only an upstream of their own that reaches only
 * allowed addresses, not one made or pointed somewhere with an administrator's rights (a folder
 * on the daemon's disk, an unrestricted address) that they no longer have.
 */
export function mayReadThrough(user: UserRow, u: Pick<UpstreamRow, 'created_by' | 'restricted' | 'url'>): boolean {
  return user.is_admin === 1 || (u.created_by === user.id && u.restricted === 1 && isRemote(u));
}

/** A readable default name: the host, or the folder's name. */
function nameFromUrl(url: string): string {
  if (url.startsWith('http')) return new URL(url).host;
  return basename(url.replace(/\/+$/, '')) || 'folder';
}

/**
 * Upstreams: where mirrors and the pull-through cache read from. Each is visible to the user who
 * made it and to administrators; its token is stored for sending and never shown again.
 */
export class UpstreamService {
  constructor(
    private readonly repo: MirrorRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
    private readonly outbound: Outbound,
  ) {}

  private now = () => this.clock.now().toISOString();

  list(p: Caller): Promise<UpstreamRow[]> {
    return this.repo.upstreams(p.user.is_admin ? null : p.user.id);
  }

  async get(p: Caller, id: string): Promise<UpstreamRow> {
    const u = await this.repo.upstream(id);
    if (!u || (!p.user.is_admin && u.created_by !== p.user.id)) throw new NotFoundError(`No upstream "${id}".`);
    return u;
  }

  async create(p: Caller | null, input: CreateUpstream): Promise<UpstreamRow> {
    await this.mayUse(p, input.url);
    const id = this.ids.id('ups');
    const now = this.now();
    const name = input.name ?? (await this.freeName(nameFromUrl(input.url)));
    await this.guard(name, () => this.repo.insertUpstream({
      id, name, name_key: nameKey(name), kind: input.kind ?? detectKind(input.url), url: input.url, token: input.token ?? null, ca: input.ca ?? null,
      ...(input.timeout_seconds ? { timeout_seconds: input.timeout_seconds } : {}),
      ...(input.max_failures ? { max_failures: input.max_failures } : {}),
      ...(input.pause_minutes !== undefined ? { pause_minutes: input.pause_minutes } : {}),
      paused_until: null, last_error: null, created_by: p?.user.id ?? null, restricted: restrictedFor(p), created_at: now, updated_at: now,
    }));
    return (await this.repo.upstream(id))!;
  }

  async update(p: Caller, id: string, patch: UpdateUpstream): Promise<UpstreamRow> {
    const u = await this.get(p, id);
    if (patch.url) await this.mayUse(p, patch.url);
    await this.write(u, patch, p);
    return (await this.repo.upstream(id))!;
  }

  async delete(p: Caller, id: string): Promise<void> {
    await this.repo.deleteUpstream((await this.get(p, id)).id);
  }

  /** The caller's upstream with this URL (its token and CA updated when given), or a new one. */
  async byUrl(p: Caller, url: string, token: string | null | undefined, ca?: string | null): Promise<UpstreamRow> {
    const mine = (await this.list(p)).find((u) => u.url === url);
    if (!mine) return this.create(p, { url, token, ca });
    if ((token && token !== mine.token) || (ca && ca !== mine.ca)) await this.write(mine, { ...(token ? { token } : {}), ...(ca ? { ca } : {}) });
    return (await this.repo.upstream(mine.id))!;
  }

  /**
   * `boxyard serve --upstream URL`: the pull-through upstream, kept in step with the flags. It is
   * the daemon's own (no creator), so no user's upstream of the same name is ever taken for it.
   */
  async ensureSystem(url: string, token: string | undefined): Promise<UpstreamRow> {
    const existing = await this.repo.systemUpstream();
    if (!existing) return this.create(null, { name: await this.freeName('pull-through'), url, token });
    if (existing.url !== url || (token && token !== existing.token)) {
      await this.write(existing, { url, kind: detectKind(url), ...(token ? { token } : {}) });
    }
    return (await this.repo.upstream(existing.id))!;
  }

  private async write(u: UpstreamRow, patch: UpdateUpstream, by: Caller | null = null) {
    const name = patch.name ?? u.name;
    await this.guard(name, () => this.repo.updateUpstream(u.id, {
      name, name_key: nameKey(name),
      ...(patch.url ? { url: patch.url, kind: patch.kind ?? detectKind(patch.url), restricted: restrictedFor(by) } : patch.kind ? { kind: patch.kind } : {}),
      // A new address of another origin does not inherit the token meant for the old one.
      ...(patch.ca !== undefined ? { ca: patch.ca } : {}),
      ...(patch.token !== undefined ? { token: patch.token }
        : patch.url && originOf(patch.url) !== originOf(u.url) ? { token: null } : {}),
      ...(patch.timeout_seconds ? { timeout_seconds: patch.timeout_seconds } : {}),
      ...(patch.max_failures ? { max_failures: patch.max_failures } : {}),
      ...(patch.pause_minutes !== undefined ? { pause_minutes: patch.pause_minutes } : {}),
      // A changed address or token deserves a fresh chance.
      ...(patch.url || patch.token !== undefined ? { failures: 0, paused_until: null, last_error: null } : {}),
      updated_at: this.now(),
    }));
  }

  /**
   * Folders on the daemon's disk are read with the daemon's rights: administrators only. A
   * non-administrator's network upstream must be a public address or one allowed in settings.
   */
  async mayUse(p: Caller | null, url: string): Promise<void> {
    if (!p || p.user.is_admin) return;
    if (!isRemote({ url })) {
      throw new ForbiddenError("Only administrators may use a folder on the daemon's disk as an upstream; import it with boxyard import instead.");
    }
    await this.outbound.check(url);
  }

  private async freeName(base: string): Promise<string> {
    for (let i = 1; ; i++) {
      const name = i === 1 ? base : `${base}-${i}`;
      if (!(await this.repo.upstreamNamed(nameKey(name)))) return name;
    }
  }

  private async guard(name: string, write: () => Promise<void>) {
    try {
      await write();
    } catch (e) {
      if (isUniqueViolation(e)) throw new ConflictError(`An upstream named "${name}" already exists. Choose another name.`);
      throw e;
    }
  }
}
