import { inTransaction } from '../store/transaction';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../store/schema';
import { nameKey } from '../contract/names';
import { startsWith } from '../store/like';
import { prepare } from '../store/cache/prepared';
import { cachedQuery, type ReadCache } from '../store/cache/read-cache';
import type { TableClock } from '../store/cache/table-clock';
import type { UsersTable, ApiTokensTable, TwoFactorTable } from './tables';

export type UserRow = Selectable<UsersTable>;
export type TokenRow = Selectable<ApiTokensTable>;
export type TwoFactorRow = Selectable<TwoFactorTable>;

export interface TokenWithUser {
  token: Pick<TokenRow, 'id' | 'token_hash' | 'last_used_at' | 'expires_at'>;
  user: UserRow;
}

/** The database or a transaction: methods that take one run inside the caller's transaction. */
export type Db = Kysely<Database> | Transaction<Database>;

/** The only SQL for users, API tokens, two-factor and settings (organizations and memberships: orgs/repository.ts). */
export class AccountRepository {
  // Every request resolves its token, and every API request reads the settings (maintenance):
  // these lookups are kept in memory until their tables change (store/cache/read-cache.ts).
  private readonly tokenQuery: ReadCache<[string], TokenWithUser | undefined>;
  private readonly settingsQuery: ReadCache<[], ReadonlyMap<string, string>>;
  private readonly userByNameQuery: ReadCache<[string], UserRow | undefined>;

  constructor(
    private readonly db: Kysely<Database>,
    versions: TableClock,
  ) {
    const first = <R>(rows: R[]) => rows[0];
    this.tokenQuery = cachedQuery(
      versions,
      prepare(db, (hash: string) =>
        db
          .selectFrom('api_tokens')
          .innerJoin('users', 'users.id', 'api_tokens.user_id')
          .selectAll('users')
          .select([
            'api_tokens.id as token_id',
            'api_tokens.token_hash as token_hash',
            'api_tokens.last_used_at as token_last_used_at',
            'api_tokens.expires_at as token_expires_at',
          ])
          .where('api_tokens.token_hash', '=', hash),
      ),
      (rows) => {
        if (!rows[0]) return undefined;
        const { token_id, token_hash, token_last_used_at, token_expires_at, ...user } = rows[0];
        return {
          token: { id: token_id, token_hash, last_used_at: token_last_used_at, expires_at: token_expires_at },
          user,
        };
      },
    );
    this.settingsQuery = cachedQuery(
      versions,
      prepare(db, () => db.selectFrom('settings').select(['key', 'value'])),
      (rows) => new Map(rows.map((r) => [r.key, r.value])),
      1,
    );
    this.userByNameQuery = cachedQuery(
      versions,
      prepare(db, (key: string) => db.selectFrom('users').selectAll().where('username_key', '=', key)),
      first,
    );
  }

  userById(id: string) {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }
  userByName(username: string) {
    return this.userByNameQuery.get(nameKey(username));
  }
  userByLogin(login: string) {
    const key = nameKey(login);
    return this.db
      .selectFrom('users')
      .selectAll()
      .where((eb) => eb.or([eb('username_key', '=', key), eb('email_key', '=', key)]))
      .executeTakeFirst();
  }
  listUsers() {
    return this.db.selectFrom('users').selectAll().orderBy('username_key').execute();
  }
  /** Up to `limit` usernames that start with `prefix` (compared by their lower-case key), by name. */
  async usernamesStartingWith(prefix: string, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('users')
      .select('username')
      .where(startsWith('username_key', nameKey(prefix)))
      .orderBy('username_key')
      .limit(limit)
      .execute();
    return rows.map((r) => r.username);
  }
  countUsers() {
    return this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }
  async insertUser(row: Omit<UserRow, 'profile_markdown' | 'is_admin'> & { is_admin: number }) {
    await this.db.insertInto('users').values(row).execute();
  }
  async updateUser(id: string, patch: Partial<Omit<UserRow, 'id'>>, db: Db = this.db) {
    await db.updateTable('users').set(patch).where('id', '=', id).execute();
  }
  /** Replaces a password hash only if it is still `old` (a rehash never undoes a change made meanwhile). */
  async replacePasswordHash(id: string, old: string, hash: string) {
    await this.db
      .updateTable('users')
      .set({ password_hash: hash })
      .where('id', '=', id)
      .where('password_hash', '=', old)
      .execute();
  }
  async deleteUser(id: string, db: Db = this.db) {
    await db.deleteFrom('users').where('id', '=', id).execute();
  }
  /** Another user with this e-mail address, if any. */
  emailOwner(emailKey: string, db: Db = this.db) {
    return db.selectFrom('users').select('id').where('email_key', '=', emailKey).executeTakeFirst();
  }
  countAdmins(db: Db = this.db) {
    return db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('is_admin', '=', 1)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }
  /** Runs `fn` in one transaction; an error inside undoes everything it wrote. */
  transaction<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return inTransaction(this.db, fn);
  }

  /** A token and its user in one query: every authenticated request resolves one. */
  tokenWithUser(hash: string): Promise<TokenWithUser | undefined> {
    return this.tokenQuery.get(hash);
  }
  listTokens(userId: string) {
    return this.db.selectFrom('api_tokens').selectAll().where('user_id', '=', userId).orderBy('created_at').execute();
  }
  async insertToken(row: TokenRow) {
    await this.db.insertInto('api_tokens').values(row).execute();
  }
  async touchToken(id: string, at: string) {
    await this.db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', id).execute();
  }
  /** Revokes a user's tokens, all of them or all but `keep`. */
  async deleteTokensOf(userId: string, keep: string | null, db: Db = this.db) {
    let q = db.deleteFrom('api_tokens').where('user_id', '=', userId);
    if (keep) q = q.where('id', '<>', keep);
    await q.execute();
  }
  /** Deletes every token that has ended (web UI sessions past their cookie's end): one statement, on an index. */
  async deleteExpiredTokens(now: string) {
    await this.db.deleteFrom('api_tokens').where('expires_at', 'is not', null).where('expires_at', '<=', now).execute();
  }
  async deleteToken(id: string, userId?: string) {
    let q = this.db.deleteFrom('api_tokens').where('id', '=', id);
    if (userId) q = q.where('user_id', '=', userId);
    const r = await q.executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  twoFactor(userId: string) {
    return this.db.selectFrom('two_factor').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }
  async saveTwoFactor(row: Partial<TwoFactorRow> & { user_id: string }, db: Db = this.db) {
    const { user_id, ...rest } = row;
    await db
      .insertInto('two_factor')
      .values(row)
      .onConflict((oc) => oc.column('user_id').doUpdateSet(rest))
      .execute();
  }
  /** Every two-factor row that holds a TOTP secret (set up or pending). */
  twoFactorSecrets() {
    return this.db
      .selectFrom('two_factor')
      .select(['user_id', 'totp_secret', 'totp_pending_secret'])
      .where((eb) => eb.or([eb('totp_secret', 'is not', null), eb('totp_pending_secret', 'is not', null)]))
      .execute();
  }
  /** Records a used TOTP step only if it is newer than the last one: a code works once. */
  async claimTotpStep(userId: string, step: number): Promise<boolean> {
    const r = await this.db
      .updateTable('two_factor')
      .set({ last_totp_step: step })
      .where('user_id', '=', userId)
      .where('last_totp_step', '<', step)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }
  async replaceSmsCode(userId: string, codeHash: string, expiresAt: string) {
    await inTransaction(this.db, async (trx) => {
      await trx.deleteFrom('two_factor_codes').where('user_id', '=', userId).execute();
      await trx
        .insertInto('two_factor_codes')
        .values({ user_id: userId, code_hash: codeHash, expires_at: expiresAt })
        .execute();
    });
  }
  /** Deletes and reports a matching, unexpired SMS code: a code works once. */
  async consumeSmsCode(userId: string, codeHash: string, now: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('two_factor_codes')
      .where('user_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** The user's recovery codes become these (none: `hashes` empty). */
  async replaceRecoveryCodes(userId: string, hashes: string[], createdAt: string) {
    await inTransaction(this.db, async (trx) => {
      await trx.deleteFrom('two_factor_recovery_codes').where('user_id', '=', userId).execute();
      if (hashes.length === 0) return;
      const rows = hashes.map((code_hash) => ({ user_id: userId, code_hash, created_at: createdAt }));
      await trx.insertInto('two_factor_recovery_codes').values(rows).execute();
    });
  }
  /** Deletes and reports a matching recovery code: a code works once. */
  async consumeRecoveryCode(userId: string, codeHash: string): Promise<boolean> {
    const r = await this.db
      .deleteFrom('two_factor_recovery_codes')
      .where('user_id', '=', userId)
      .where('code_hash', '=', codeHash)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }
  async recoveryCodesLeft(userId: string): Promise<number> {
    const r = await this.db
      .selectFrom('two_factor_recovery_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async getSetting(key: string): Promise<string | undefined> {
    const r = await this.db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
    return r?.value;
  }
  /** Every stored setting (a handful of rows). */
  /** The stored settings if they are in memory and unchanged, else undefined. */
  peekSettings(): ReadonlyMap<string, string> | undefined {
    return this.settingsQuery.peek();
  }
  getSettings(): Promise<ReadonlyMap<string, string>> {
    return this.settingsQuery.get();
  }
  async setSetting(key: string, value: string) {
    await this.db
      .insertInto('settings')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }
}
