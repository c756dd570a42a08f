import { basename } from 'node:path';
import type { Principal } from '../../auth/accounts-service';
import type { UserRow } from '../../auth/repository';
import { nameKey } from '../../contract/names';
import { ConflictError, ForbiddenError, NotFoundError } from '../../lib/errors';
import type { Clock } from '../../lib/clock';
import type { IdGen } from '../../lib/ids';
import { isUniqueViolation } from '../../store/storage-errors';
import type { UpstreamRepository, UpstreamRow } from './repository';
import type { CreateUpstream, UpdateUpstream } from '../schemas';
import { detectKind, isRemote } from './source';
import type { Outbound } from './outbound';
import { upstreamRow } from './upstream-row';
import type { Logger } from 'pino';
import { present } from '../../lib/invariant';

/** Scheme, host and port: a token follows its upstream only to the same origin. */
const originOf = (url: string): string | null => (isRemote({ url }) ? new URL(url).origin : null);

type Caller = NonNullable<Principal>;

/** 1: a non-administrator chose the address (outbound.ts's reachFor holds it to the address policy). */
const restrictedFor = (p: Caller | null): number => (p && !p.user.is_admin ? 1 : 0);

/**
 * Whether a user may read through the upstream, in a mirror's run (with the rights of the user it
 * runs as, now), a plan or a new mirror: only an upstream of their own (another user's is theirs
 * to point elsewhere, and holds their token), or for an administrator the daemon's own. A user who
 * is not an administrator reads only through one that reaches allowed addresses, not one made or
 * pointed somewhere with an administrator's rights (a folder on the daemon's disk, an address
 * only an administrator may reach) that they no longer have.
 */
export function mayReadThrough(user: UserRow, u: Pick<UpstreamRow, 'created_by' | 'restricted' | 'url'>): boolean {
  if (u.created_by === null) return user.is_admin === 1;
  return u.created_by === user.id && (user.is_admin === 1 || (u.restricted === 1 && isRemote(u)));
}

/** A readable default name: the host, or the folder's name. */
function nameFromUrl(url: string): string {
  if (isRemote({ url })) return new URL(url).host;
  return basename(url.replace(/\/+$/, '')) || 'folder';
}

/**
 * Upstreams: where mirrors and the pull-through cache read from. Each belongs to the user who
 * made it: it is visible to them and to administrators, and only its owner's mirrors and plans
 * read from it. An administrator may change or delete anyone's by id, on purpose (the answer
 * names its owner, and the log says who changed whose); nothing else writes a row its caller does
 * not own. Its token is stored for sending and never shown again.
 */
export class UpstreamService {
  constructor(
    private readonly repo: UpstreamRepository,
    private readonly clock: Clock,
    private readonly ids: IdGen,
    private readonly outbound: Outbound,
    private readonly log?: Logger,
  ) {}

  private now = () => this.clock.now().toISOString();

  list(p: Caller): Promise<UpstreamRow[]> {
    return this.repo.upstreams(p.user.is_admin ? null : p.user.id);
  }

  /** One the caller may see and change: their own, or any for an administrator. */
  async get(p: Caller, id: string): Promise<UpstreamRow> {
    const u = await this.repo.upstream(id);
    if (!u || (!p.user.is_admin && u.created_by !== p.user.id)) throw new NotFoundError(`No upstream "${id}".`);
    return u;
  }

  /** One the caller may read from in a mirror or plan (mayReadThrough), or why not. */
  async own(p: Caller, id: string): Promise<UpstreamRow> {
    const u = await this.get(p, id);
    if (mayReadThrough(p.user, u)) return u;
    throw new ForbiddenError(
      u.created_by === p.user.id
        ? `Upstream "${u.name}" was set up with administrator rights you no longer have (a folder on the daemon's disk, or an address only an administrator may reach): point it at a public address first.`
        : `Upstream "${u.name}" belongs to ${u.owner_name ?? 'the daemon'}: a mirror reads only from its own user's upstreams. Give its URL instead (upstream: {url}), which makes one of your own.`,
      { field: 'upstream_id' },
    );
  }

  /** `restricted`: 1 when the address was chosen by a non-administrator (the caller, unless `adopt` says whom). */
  async create(p: Caller | null, input: CreateUpstream, restricted = restrictedFor(p)): Promise<UpstreamRow> {
    await this.mayUse(p, input.url);
    const id = this.ids.id('ups');
    const name = input.name ?? (await this.freeName(p, nameFromUrl(input.url)));
    await this.guard(name, () =>
      this.repo.insertUpstream(
        upstreamRow(input, { id, name, createdBy: p?.user.id ?? null, restricted, now: this.clock.now() }),
      ),
    );
    return present(
      await this.repo.upstream(id),
      `Upstream ${id} is there when read back just after it was written or found`,
    );
  }

  /**
   * The caller's own upstream at another user's address, without their token or CA (a paused
   * mirror resumed by someone else). The address is still the other user's choice: unless an
   * administrator chose it, the copy stays under the address policy, whoever takes it over.
   */
  async adopt(p: Caller, other: UpstreamRow): Promise<UpstreamRow> {
    const mine = await this.mineAt(p, other.url);
    if (mine) return mine;
    const chosenByAnAdministrator = other.restricted === 0 && other.owner_admin !== 0;
    return this.create(p, { url: other.url }, chosenByAnAdministrator ? restrictedFor(p) : 1);
  }

  /**
   * The caller's own upstream with this URL (its token and CA updated when given), or a new one.
   * Only the caller's: an administrator's URL never finds, and never writes into, a user's row.
   */
  async byUrl(p: Caller, url: string, token: string | null | undefined, ca?: string | null): Promise<UpstreamRow> {
    const mine = await this.mineAt(p, url);
    if (!mine) return this.create(p, { url, token, ca });
    if ((token && token !== mine.token) || (ca && ca !== mine.ca))
      await this.write(mine, { ...(token ? { token } : {}), ...(ca ? { ca } : {}) });
    return present(
      await this.repo.upstream(mine.id),
      `Upstream ${mine.id} is there when read back just after it was written or found`,
    );
  }

  /**
   * What a plan reads through: the caller's own upstream with this URL (with the token given, if
   * any), or a row held only for the plan, never stored.
   */
  async forPlan(p: Caller, input: { url: string; token?: string | null; ca?: string | null }): Promise<UpstreamRow> {
    await this.mayUse(p, input.url);
    const mine = await this.mineAt(p, input.url);
    if (mine) return { ...mine, token: input.token ?? mine.token, ca: input.ca ?? mine.ca };
    const row = upstreamRow(input, {
      id: 'plan',
      name: nameFromUrl(input.url),
      createdBy: p.user.id,
      restricted: restrictedFor(p),
      now: this.clock.now(),
    });
    return { ...row, owner_admin: p.user.is_admin ? 1 : 0, owner_name: p.user.username };
  }

  private async mineAt(p: Caller, url: string): Promise<UpstreamRow | undefined> {
    return (await this.repo.upstreams(p.user.id)).find((u) => u.url === url);
  }

  async update(p: Caller, id: string, patch: UpdateUpstream): Promise<UpstreamRow> {
    const u = await this.get(p, id);
    if (patch.url) await this.mayUse(p, patch.url);
    if (u.created_by !== p.user.id)
      this.log?.info(
        { upstream: u.id, owner: u.owner_name, by: p.user.username },
        "an administrator changed another user's upstream",
      );
    await this.write(u, patch, p);
    return present(
      await this.repo.upstream(id),
      `Upstream ${id} is there when read back just after it was written or found`,
    );
  }

  async delete(p: Caller, id: string): Promise<void> {
    await this.repo.deleteUpstream((await this.get(p, id)).id);
  }

  /**
   * `boxyard serve --upstream URL`: the pull-through upstream, kept in step with the flags. It is
   * the daemon's own (no creator), so no user's upstream of the same name is ever taken for it.
   */
  async ensureSystem(url: string, token: string | undefined): Promise<UpstreamRow> {
    const existing = await this.repo.systemUpstream();
    if (!existing) return this.create(null, { name: await this.freeName(null, 'pull-through'), url, token });
    if (existing.url !== url || (token && token !== existing.token)) {
      await this.write(existing, { url, kind: detectKind(url), ...(token ? { token } : {}) });
    }
    return present(
      await this.repo.upstream(existing.id),
      `Upstream ${existing.id} is there when read back just after it was written or found`,
    );
  }

  private async write(u: UpstreamRow, patch: UpdateUpstream, by: Caller | null = null) {
    const name = patch.name ?? u.name;
    await this.guard(name, () =>
      this.repo.updateUpstream(u.id, {
        name,
        name_key: nameKey(name),
        // An administrator pointing a user's upstream somewhere leaves it under its owner's rules.
        ...(patch.url
          ? {
              url: patch.url,
              kind: patch.kind ?? detectKind(patch.url),
              restricted: restrictedFor(by) || u.owner_admin === 0 ? 1 : 0,
            }
          : patch.kind
            ? { kind: patch.kind }
            : {}),
        // A new address of another origin does not inherit the token meant for the old one.
        ...(patch.ca !== undefined ? { ca: patch.ca } : {}),
        ...(patch.token !== undefined
          ? { token: patch.token }
          : patch.url && originOf(patch.url) !== originOf(u.url)
            ? { token: null }
            : {}),
        ...(patch.timeout_seconds ? { timeout_seconds: patch.timeout_seconds } : {}),
        ...(patch.max_failures ? { max_failures: patch.max_failures } : {}),
        ...(patch.pause_minutes !== undefined ? { pause_minutes: patch.pause_minutes } : {}),
        // A changed address or token deserves a fresh chance.
        ...(patch.url || patch.token !== undefined ? { failures: 0, paused_until: null, last_error: null } : {}),
        updated_at: this.now(),
      }),
    );
  }

  /**
   * Folders on the daemon's disk are read with the daemon's rights: administrators only. A
   * non-administrator's network upstream must be a public address or one allowed in settings.
   */
  async mayUse(p: Caller | null, url: string): Promise<void> {
    if (!p || p.user.is_admin) return;
    if (!isRemote({ url })) {
      throw new ForbiddenError(
        "Only administrators may use a folder on the daemon's disk as an upstream; import it with boxyard import instead.",
      );
    }
    await this.outbound.check(url);
  }

  /** A name the owner has no upstream of yet (names are unique per owner). */
  private async freeName(p: Caller | null, base: string): Promise<string> {
    for (let i = 1; ; i++) {
      const name = i === 1 ? base : `${base}-${i}`;
      if (!(await this.repo.upstreamNamed(p?.user.id ?? null, nameKey(name)))) return name;
    }
  }

  private async guard(name: string, write: () => Promise<void>) {
    try {
      await write();
    } catch (e) {
      if (isUniqueViolation(e))
        throw new ConflictError(`Its owner already has an upstream named "${name}". Choose another name.`, {
          field: 'name',
        });
      throw e;
    }
  }
}
