import type SqliteDatabase from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { loadConfig, type Config } from '../../daemon/src/config';
import { startDaemon, type RunningDaemon } from '../../daemon/src/main';
import type { Clock } from '../../daemon/src/lib/clock';
import type { PasswordHasher } from '../../daemon/src/lib/crypto';
import { HttpClient } from './http';
import { backendFor } from './backend';
import { clientFetch } from '../../daemon/src/tls/client-fetch';
import type { CertificateSource, TrustedCa } from '../../daemon/src/tls/issuer';

export const ADMIN = { username: 'admin', password: 'admin-password-1' };

export interface TestDaemon extends RunningDaemon {
  dataDir: string;
  /** A token of the administrator. */
  adminToken: string;
  /** A client bound to the daemon's URL (no token). */
  http: HttpClient;
  /** Makes a user with a token; `orgs` become organizations the user owns. */
  user(username: string, opts?: { orgs?: string[]; password?: string }): Promise<{ token: string; http: HttpClient }>;
  stop(): Promise<void>;
}

/** A real daemon on 127.0.0.1 with a free port and a temporary data folder. */
export async function startTestDaemon(
  opts: {
    config?: Partial<Config>;
    clock?: Clock;
    dataDir?: string;
    log?: Logger;
    passwords?: PasswordHasher;
    /** A CA file the daemon's HTTPS certificate chains to (`--tls-cert`); `--tls auto`'s own CA is trusted without. */
    caFile?: string;
  } = {},
): Promise<TestDaemon> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'boxyard-test-'));
  // Every test connects from 127.0.0.1, a whole LAN's worth of clients from one address: the
  // per-address connection cap is lifted as the rate limit is (test/http/hostile-connections.test.ts sets both).
  const config = loadConfig(
    {},
    {
      dataDir,
      host: '127.0.0.1',
      port: 0,
      adminPassword: ADMIN.password,
      requestsPerMinute: 0,
      loginAttempts: 1000,
      maxConnectionsPerAddress: 100_000,
      ...(await backendFor(dataDir)),
      ...opts.config,
    },
  );
  const d = await startDaemon(config, {
    clock: opts.clock,
    passwords: opts.passwords,
    log: opts.log ?? pino({ level: process.env.BOXYARD_TEST_LOG ?? 'silent' }),
  });
  // On HTTPS the test's requests trust the daemon's CA (its own, written to the data folder, or the one given).
  const caFile = opts.caFile ?? (d.deps.tls?.ca ? join(dataDir, 'tls', 'ca.pem') : undefined);
  const http = new HttpClient(d.url, undefined, 'application/json', await clientFetch(caFile));
  const login = async (username: string, password: string) => {
    const r = await http.post('/api/v1/authenticate', { user: { login: username, password } });
    if (r.status !== 200) throw new Error(`login ${username} failed: ${r.status} ${r.text}`);
    return (r.json as { token: string }).token;
  };
  const adminToken = await login(ADMIN.username, ADMIN.password);
  return {
    ...d,
    dataDir,
    adminToken,
    http,
    async user(username, o = {}) {
      const password = o.password ?? `${username}-password`;
      await d.deps.accounts.createUser({ username, password });
      const token = await login(username, password);
      const owner = await d.deps.accounts.userNamed(username);
      for (const org of o.orgs ?? []) await d.deps.orgs.create({ name: org }, owner);
      return { token, http: http.withToken(token) };
    },
    async stop() {
      await d.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The SQLite handle of a daemon on the embedded database, for tests of what SQLite itself does. */
export function sqliteOf(d: { deps: RunningDaemon['deps'] }): SqliteDatabase.Database {
  const store = d.deps.store;
  if (store.dialect !== 'sqlite')
    throw new Error(`this test reads the SQLite file directly; the daemon runs on ${store.dialect}`);
  return store.raw;
}

/** The daemon's certificate source; throws when it serves plain HTTP. */
export function tlsOf(d: { deps: RunningDaemon['deps'] }): CertificateSource {
  const tls = d.deps.tls;
  if (!tls) throw new Error('this test needs a daemon on HTTPS; this one serves plain HTTP');
  return tls;
}

/** The CA of a daemon on `--tls auto` (its own, in the data folder); throws when it has none. */
export function localCaOf(d: { deps: RunningDaemon['deps'] }): TrustedCa {
  const ca = tlsOf(d).ca;
  if (!ca) throw new Error('this test needs a daemon on --tls auto; this one has no CA of its own');
  return ca;
}

/** The row of the organization named `name`; throws when there is none. */
export async function orgNamed(d: { deps: RunningDaemon['deps'] }, name: string) {
  const org = await d.deps.orgs.named(name);
  if (!org) throw new Error(`the daemon has no organization named ${name}`);
  return org;
}

/** Who `token` stands for (its user and token id); throws when the daemon does not take it. */
export async function principalOf(d: { deps: RunningDaemon['deps'] }, token: string) {
  const principal = await d.deps.tokens.resolve(token);
  if (!principal) throw new Error('the daemon does not take this token');
  return principal;
}
