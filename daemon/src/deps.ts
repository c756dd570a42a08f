import type { Logger } from 'pino';
import { createLogger } from './lib/log';
import { databaseFile, secretKeyFile, type Config } from './config';
import { openStore, type Store } from './store/db';
import { prepareDataFolder } from './store/data-folder';
import { IntegrityCheck } from './store/integrity';
import { DataHealth, bucketProbe, folderBlobsProbe, postgresDatabaseProbe, sqliteDatabaseProbe } from './data/health';
import type { Lifecycle } from './http/health';
import { AdvisoryLockLeadership, SoleDaemon } from './store/leader';
import { systemClock, type Clock } from './lib/clock';
import { randomIdGen, type IdGen } from './lib/ids';
import { AccountRepository } from './auth/repository';
import { AccountService } from './auth/accounts-service';
import { OrgsRepository } from './orgs/repository';
import { OrgService } from './orgs/service';
import { OrganizationAccess } from './orgs/access';
import { TokenService } from './auth/tokens-service';
import { ServicePrincipalService } from './auth/service-principals/service';
import { ServicePrincipalRepository } from './auth/service-principals/repository';
import { TwoFactorService } from './auth/two-factor/two-factor';
import { PasswordService } from './auth/passwords';
import { PasswordHasher } from './lib/crypto';
import { SecretBox } from './lib/secret-box';
import { SettingsService } from './auth/settings';
import { createSmsSender } from './auth/two-factor/sms-sender';
import { LoginLimiter, memoryLimiters, postgresLimiters } from './http/guards/rate-limit';
import { RegistryRepository } from './registry/repository';
import { RegistryService } from './registry/service';
import { buildBlobs } from './blobs/build';
import { buildAgentServices } from './tfc-services';
import { MirrorRepository } from './mirror/repository';
import { UpstreamRepository } from './mirror/upstreams/repository';
import { CacheRepository } from './mirror/cache/repository';
import { buildMirror } from './mirror/build';
import { certificateSource } from './tls/certificate-source';
import { ImportService } from './mirror/import/service';
import { OverviewQueries } from './data/overview';
import { Metrics } from './http/metrics';
import { registerScrapedMetrics } from './data/metrics-routes';

export interface DepsOptions {
  clock?: Clock;
  ids?: IdGen;
  log?: Logger;
  /** Password hashing (tests count the work it does). */
  passwords?: PasswordHasher;
}

/** The database the config names: PostgreSQL when it gives a URL, else the data folder's SQLite file. */
async function openDatabase(config: Config, log: Logger): Promise<Store> {
  if (!config.database) return openStore(databaseFile(config));
  // Loaded only when asked for: the driver and its setup cost the embedded default start time and memory.
  const { openPostgres } = await import('./store/postgres');
  return openPostgres(config.database, { log });
}

/** The only wiring file: builds repositories and services from the config and the database. */
export async function buildDeps(config: Config, opts: DepsOptions = {}) {
  const log = opts.log ?? createLogger(config.logLevel);
  const folder = prepareDataFolder(config.dataDir, config.database ? null : databaseFile(config));
  if (folder.tightened > 0)
    log.info({ tightened: folder.tightened }, 'data folder made private: folders 0700, files 0600');
  const clock = opts.clock ?? systemClock();
  const ids = opts.ids ?? randomIdGen();
  // Before the database: a damaged key stops the start with nothing opened.
  const secrets = SecretBox.fromKeyFile(secretKeyFile(config));
  const store = await openDatabase(config, log);
  const db = store.db;

  const accountRepo = new AccountRepository(db, store.versions);
  const sms = createSmsSender({ command: config.smsCommand, webhook: config.smsWebhook, log });
  const twoFactor = new TwoFactorService(accountRepo, clock, sms, secrets);
  const passwords = new PasswordService(accountRepo, opts.passwords ?? new PasswordHasher(), twoFactor);
  const orgRepo = new OrgsRepository(db, store.versions);
  const principals = new ServicePrincipalService(new ServicePrincipalRepository(db, store.versions), clock, ids);
  const accounts = new AccountService(accountRepo, passwords, clock, ids, orgRepo, principals);
  const orgs = new OrgService(orgRepo, accounts, clock, ids);
  const orgAccess = new OrganizationAccess(orgs);
  const tokens = new TokenService(accountRepo, twoFactor, passwords, clock, ids, principals);
  const mirrorRepo = new MirrorRepository(db);
  const upstreamRepo = new UpstreamRepository(db);
  const settings = new SettingsService(
    accountRepo,
    { maintenance: config.maintenance, offline: config.offline },
    async (id) => (await upstreamRepo.upstream(id)) !== undefined,
  );
  // Counted where every daemon sees the counts: in memory for one daemon, in PostgreSQL for several.
  const limiters = store.dialect === 'postgres' ? postgresLimiters(store.pool) : memoryLimiters;
  const loginLimiter = new LoginLimiter(config.loginAttempts, limiters);
  const registry = new RegistryService(new RegistryRepository(db, store.versions), orgs, clock, ids);
  // Also registers the after-create hooks of the features above orgs/ (the default project).
  const agents = buildAgentServices(
    db,
    store.versions,
    { orgs, access: orgAccess, repo: orgRepo },
    clock,
    ids,
    config,
    log,
  );
  await agents.knowLiveAgents();

  const closers: Array<() => Promise<void> | void> = [agents.closePings];
  // The daemon that runs the watchdog, garbage collection and scheduled mirrors; another takes
  // over within half a ping interval when it dies. A database URL is what made the store PostgreSQL's.
  const leadership = config.database
    ? new AdvisoryLockLeadership(config.database, log, (config.agentPingSeconds * 1000) / 2)
    : new SoleDaemon();
  // Prometheus metrics (http/metrics.ts): one registry per daemon, served at /metrics.
  const metrics = config.metrics ? new Metrics() : undefined;
  if (metrics) registerScrapedMetrics(metrics, { store, leadership });
  const blobs = await buildBlobs({ config, db, registry, clock, ids, log, metrics, mirrorJobs: mirrorRepo });
  closers.push(blobs.close);
  const tls = certificateSource(config, log, clock);
  const mirror = buildMirror({
    db,
    repo: mirrorRepo,
    upstreamRepo,
    cacheRepo: new CacheRepository(db, store.versions),
    orgs,
    settings,
    registry,
    blobs: blobs.blobStore,
    holds: blobs.holds,
    space: config.blobs ? undefined : blobs.space,
    downloads: config.mirrorDownloads,
    metrics,
    clock,
    ids,
    log,
  });
  // The daemon starts the SQLite database's integrity check (main.ts); /healthz reports it with the rest.
  const integrity = store.dialect === 'sqlite' ? new IntegrityCheck(databaseFile(config), log) : null;
  if (integrity) closers.push(() => integrity.stop());
  const health = new DataHealth({
    database:
      store.dialect === 'sqlite' && integrity
        ? sqliteDatabaseProbe(store.raw, databaseFile(config), integrity)
        : postgresDatabaseProbe(db),
    blobs: config.blobs ? bucketProbe(blobs.blobStore) : folderBlobsProbe(config.dataDir),
    space: blobs.space,
    clock,
    ...(tls ? { tls: () => tls.status() } : {}),
  });
  return {
    config,
    log,
    clock,
    ids,
    store,
    db,
    accounts,
    tokens,
    principals,
    twoFactor,
    passwords,
    settings,
    loginLimiter,
    limiters,
    orgs,
    orgAccess,
    registry,
    imports: new ImportService(registry, blobs.blobStore, blobs.holds, ids),
    agents,
    blobStore: blobs.blobStore,
    uploads: blobs.uploads,
    blobCollector: blobs.blobCollector,
    mirror,
    integrity,
    health,
    leadership,
    metrics,
    /** HTTPS: where the certificate comes from (null: plain HTTP); main.ts starts it and listens with it. */
    tls,
    /** Where the daemon listens, once it does (the HTTPS guard names its port). */
    listening: { port: config.port },
    /** Whether the daemon is stopping (/readyz answers 503 from then on). */
    lifecycle: { draining: false } as Lifecycle,
    /** The overview page's SQL, and what else it reports (ui: data/overview-routes.ts). */
    overview: { overview: new OverviewQueries(db), health, space: blobs.space, config, tls },
    /** Background work (watchdogs, garbage collection) registers its stop function here. */
    onClose: (fn: () => Promise<void> | void) => {
      closers.push(fn);
    },
    async close() {
      // Every closer runs, whichever failed before it: the agents' kept pings are written last.
      const failures: unknown[] = [];
      for (const fn of closers.reverse())
        await Promise.resolve()
          .then(fn)
          .catch((err: unknown) => failures.push(err));
      await store.close();
      if (failures.length > 0) throw failures[0];
    },
  };
}

export type Deps = Awaited<ReturnType<typeof buildDeps>>;
