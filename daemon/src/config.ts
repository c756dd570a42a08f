import { join } from 'node:path';
import envPaths from 'env-paths';
import { z } from 'zod';
import { DEFAULT_HOST, DEFAULT_PORT } from './contract/ipc';
import { LOG_LEVELS } from './lib/log';

/** Let's Encrypt's production directory: `--tls acme` without `--acme-directory`. */
export const LETS_ENCRYPT = 'https://acme-v02.api.letsencrypt.org/directory';

/** An https public URL whose host is a DNS name (not an address): what an ACME CA issues for. */
function isAcmeName(publicUrl: string | undefined): boolean {
  if (!publicUrl?.startsWith('https://')) return false;
  const host = new URL(publicUrl).hostname;
  return host.includes('.') && !/^[\d.]+$/.test(host) && !host.startsWith('[');
}

const intFrom = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const bool = z
  .union([z.boolean(), z.enum(['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off', ''])])
  .transform((v) => v === true || v === '1' || v === 'true' || v === 'yes' || v === 'on');

/** Every setting of the daemon, with its default. Sources: environment (BOXYARD_*) then CLI flags. */
export const Config = z
  .object({
    host: z.string().min(1).default(DEFAULT_HOST),
    port: intFrom(0, 65535).default(DEFAULT_PORT),
    dataDir: z.string().min(1),
    /**
     * A PostgreSQL database (`postgres://user:pass@host:5432/name`) instead of the data folder's
     * SQLite file: for several daemons behind one load balancer (docs/deploy.md).
     */
    database: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'database: a postgres:// URL')
      .optional(),
    /**
     * An S3-compatible bucket (`s3://BUCKET/PREFIX?endpoint=…&region=…`) instead of the data
     * folder's blobs/ and uploads/; credentials come from the AWS SDK's usual sources (env
     * AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, an instance role).
     */
    blobs: z
      .string()
      .regex(/^s3:\/\/[^/?#]+/, 'blobs: an s3://BUCKET/PREFIX URL')
      .optional(),
    /**
     * Behind a load balancer or reverse proxy: the client's address is the last one in
     * X-Forwarded-For (the proxy's own entry), for rate limits, login limits and logs.
     */
    trustProxy: bool.default(false),
    /**
     * Downloads from an S3 store answer with a redirect to a short-lived presigned URL instead of streaming through the
     * daemon.
     */
    blobsRedirect: bool.default(false),
    /** Base URL put in upload and download links; else taken from the request's Host. */
    publicUrl: z
      .url()
      .optional()
      .transform((u) => u?.replace(/\/+$/, '')),
    /**
     * Host names the daemon answers besides its own (public URL, listen addresses, localhost): a
     * comma-separated list; `.example.org` allows that domain and its subdomains, `*` any host.
     */
    allowedHosts: z
      .union([z.string(), z.array(z.string())])
      .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((h) => h.trim()).filter(Boolean))
      .pipe(
        z.array(
          z
            .string()
            .regex(
              /^(\*|\.?[^\s/:@]+|\[?[0-9a-fA-F:.]+\]?)$/,
              'allowedHosts: host names or addresses (not URLs), `.domain` or `*`',
            ),
        ),
      )
      .default([]),
    logLevel: z.enum(LOG_LEVELS).default('info'),
    adminUsername: z.string().min(1).default('admin'),
    adminPassword: z.string().min(1).optional(),
    /** Lifetime of an upload URL. */
    uploadTtlHours: z.coerce
      .number()
      .positive()
      .max(24 * 30)
      .default(6),
    /**
     * The largest file a direct upload takes (its PUT's Content-Length, or what a chunked one streamed): HCP's
     * registry API and vagrant send bigger files through a plain upload, as its 5 GiB S3 limit asks. Tests lower it.
     */
    directUploadLimitBytes: intFrom(1, Number.MAX_SAFE_INTEGER).default(5 * 1024 ** 3),
    /**
     * Failed logins (and wrong current passwords) allowed per account from one address in 15
     * minutes; 10× that per address, and 3× that a minute per account from all addresses together
     * (http/guards/rate-limit.ts LoginLimiter).
     */
    loginAttempts: intFrom(1, 1_000_000).default(10),
    /** Requests per minute per token (or per address when anonymous); 0 switches the limit off. */
    requestsPerMinute: intFrom(0, 10_000_000).default(3000),
    /** Start in maintenance mode (503 for the APIs); also switchable at run time. */
    maintenance: bool.default(false),
    /** Two-factor SMS sender: a command (code in $BOXYARD_SMS_CODE, number in $BOXYARD_SMS_TO) … */
    smsCommand: z.string().optional(),
    /** … or a webhook URL that receives `{"to","code","message"}` as JSON. Neither: the code is logged. */
    smsWebhook: z.url().optional(),
    /** An agent silent this long turns `unknown`. */
    agentUnknownAfterSeconds: intFrom(1, 86_400).default(60),
    /** An `unknown` agent turns `errored` after this long. */
    agentErroredAfterSeconds: intFrom(1, 86_400).default(300),
    /** How often agents are told to report. */
    agentPingSeconds: intFrom(1, 3600).default(10),
    /** Offline for this run: no outbound connection at all (also switchable, and kept, in settings). */
    offline: bool.default(false),
    /** Pull-through cache: boxes that are not local are answered from this upstream (also in settings). */
    upstream: z.string().min(1).optional(),
    /** The pull-through upstream's token, sent as vagrant sends it. */
    upstreamToken: z.string().min(1).optional(),
    /**
     * Free space (MiB) kept on the data folder's disk: uploads, mirror and cache downloads that would eat into it are
     * refused (507); 0 switches the check off.
     */
    diskReserveMb: intFrom(0, 10_000_000).default(512),
    /** Files all mirror jobs together download at once (each job also keeps to its own `parallel`). */
    mirrorDownloads: intFrom(1, 64).default(8),
    /**
     * How long start waits for the database's integrity check (`PRAGMA quick_check`) before serving while it finishes
     * in the background.
     */
    startCheckWaitMs: intFrom(0, 600_000).default(300),
    /** A request's headers must arrive within this many seconds (slowloris); answered 408 otherwise. */
    headersTimeoutSeconds: z.coerce.number().positive().max(3600).default(20),
    /**
     * A request body (an upload, an import, JSON) that sends no byte for this long is dropped. Idle, never total: a
     * slow link may take hours.
     */
    bodyIdleSeconds: z.coerce.number().positive().max(86_400).default(60),
    /** A JSON body (at most 1 MiB) must arrive whole within this many seconds; 408 otherwise. */
    jsonBodySeconds: z.coerce.number().positive().max(3600).default(30),
    /** Open connections allowed from one client address; more are answered 503 and closed. */
    maxConnectionsPerAddress: intFrom(1, 1_000_000).default(128),
    /**
     * On SIGTERM: how long the daemon keeps serving with /readyz answering 503, so that a load
     * balancer stops sending it requests and those in flight finish (longer than the balancer's
     * health-check interval). 0 stops at once.
     */
    drainSeconds: z.coerce.number().min(0).max(3600).default(0),
    /** Open connections allowed in all; 0 derives it from the process's open-file limit. */
    maxConnections: intFrom(0, 10_000_000).default(0),
    /**
     * HTTPS (tls/): `auto` a certificate from the daemon's own CA in DATA/tls/, `files` the user's
     * own (`tlsCert`, `tlsKey`; given alone they choose it), `acme` one for the public URL's name
     * from an ACME CA (`acmeDirectory`, `acmeEmail`). Off: plain HTTP.
     */
    tls: z.enum(['off', 'auto', 'files', 'acme']).optional(),
    tlsCert: z.string().min(1).optional(),
    tlsKey: z.string().min(1).optional(),
    /** The ACME CA's directory; choosing it agrees to that CA's terms of service. */
    acmeDirectory: z.url().default(LETS_ENCRYPT),
    /** Where the ACME CA writes about the account (expiry notices); optional. */
    acmeEmail: z.email().optional(),
    /** The ACME directory's own CA, for a private ACME server (step-ca, pebble); a public CA needs none. */
    acmeCaFile: z.string().min(1).optional(),
    /** Prometheus metrics (GET /metrics, and the counting behind it); off: neither. */
    metrics: bool.default(true),
    /**
     * Lets Prometheus scrape /metrics from beyond this machine with `Authorization: Bearer` it (loopback needs none).
     */
    metricsToken: z.string().min(16, 'metricsToken: at least 16 characters').optional(),
    /** A plain-HTTP port that redirects browsers to HTTPS and answers ACME's HTTP-01 challenges (80 with `acme`). */
    httpPort: intFrom(1, 65535).optional(),
  })
  .transform((c) => {
    const tls = c.tls ?? (c.tlsCert || c.tlsKey ? ('files' as const) : ('off' as const));
    return { ...c, tls, httpPort: c.httpPort ?? (tls === 'acme' ? 80 : undefined) };
  })
  .refine((c) => c.tls !== 'files' || (c.tlsCert && c.tlsKey), {
    message: 'tls: your own certificate needs both --tls-cert FILE and --tls-key FILE',
    path: ['tlsCert'],
  })
  .refine((c) => c.tls === 'files' || (!c.tlsCert && !c.tlsKey), {
    message: 'tls: --tls-cert and --tls-key go with your own certificate, not with --tls auto or acme',
    path: ['tls'],
  })
  .refine((c) => c.tls !== 'acme' || isAcmeName(c.publicUrl), {
    message:
      'tls: --tls acme needs --public-url https://NAME, a DNS name that resolves to this machine (the certificate is for it)',
    path: ['publicUrl'],
  })
  .refine((c) => c.tls !== 'acme' || !c.offline, {
    message:
      'tls: --tls acme asks an ACME CA for its certificate, which --offline forbids (use --tls auto or --tls-cert/--tls-key)',
    path: ['tls'],
  })
  .refine((c) => c.tls === 'acme' || (!c.acmeEmail && !c.acmeCaFile), {
    message: 'tls: --acme-email and --acme-ca-file go with --tls acme',
    path: ['tls'],
  });
export type Config = z.infer<typeof Config>;

const ENV_KEYS: Record<string, keyof Config> = {
  BOXYARD_HOST: 'host',
  BOXYARD_PORT: 'port',
  BOXYARD_DATA: 'dataDir',
  BOXYARD_DATABASE_URL: 'database',
  BOXYARD_BLOBS: 'blobs',
  BOXYARD_BLOBS_REDIRECT: 'blobsRedirect',
  BOXYARD_TRUST_PROXY: 'trustProxy',
  BOXYARD_PUBLIC_URL: 'publicUrl',
  BOXYARD_ALLOWED_HOSTS: 'allowedHosts',
  BOXYARD_LOG_LEVEL: 'logLevel',
  BOXYARD_ADMIN_USERNAME: 'adminUsername',
  BOXYARD_ADMIN_PASSWORD: 'adminPassword',
  BOXYARD_UPLOAD_TTL_HOURS: 'uploadTtlHours',
  BOXYARD_DIRECT_UPLOAD_LIMIT: 'directUploadLimitBytes',
  BOXYARD_LOGIN_ATTEMPTS: 'loginAttempts',
  BOXYARD_REQUESTS_PER_MINUTE: 'requestsPerMinute',
  BOXYARD_MAINTENANCE: 'maintenance',
  BOXYARD_SMS_COMMAND: 'smsCommand',
  BOXYARD_SMS_WEBHOOK: 'smsWebhook',
  BOXYARD_AGENT_UNKNOWN_AFTER: 'agentUnknownAfterSeconds',
  BOXYARD_AGENT_ERRORED_AFTER: 'agentErroredAfterSeconds',
  BOXYARD_AGENT_PING: 'agentPingSeconds',
  BOXYARD_OFFLINE: 'offline',
  BOXYARD_UPSTREAM: 'upstream',
  BOXYARD_UPSTREAM_TOKEN: 'upstreamToken',
  BOXYARD_DISK_RESERVE_MB: 'diskReserveMb',
  BOXYARD_MIRROR_DOWNLOADS: 'mirrorDownloads',
  BOXYARD_START_CHECK_WAIT_MS: 'startCheckWaitMs',
  BOXYARD_HEADERS_TIMEOUT_SECONDS: 'headersTimeoutSeconds',
  BOXYARD_BODY_IDLE_SECONDS: 'bodyIdleSeconds',
  BOXYARD_JSON_BODY_SECONDS: 'jsonBodySeconds',
  BOXYARD_MAX_CONNECTIONS_PER_ADDRESS: 'maxConnectionsPerAddress',
  BOXYARD_MAX_CONNECTIONS: 'maxConnections',
  BOXYARD_DRAIN_SECONDS: 'drainSeconds',
  BOXYARD_TLS: 'tls',
  BOXYARD_TLS_CERT: 'tlsCert',
  BOXYARD_TLS_KEY: 'tlsKey',
  BOXYARD_HTTP_PORT: 'httpPort',
  BOXYARD_METRICS: 'metrics',
  BOXYARD_METRICS_TOKEN: 'metricsToken',
  BOXYARD_ACME_DIRECTORY: 'acmeDirectory',
  BOXYARD_ACME_EMAIL: 'acmeEmail',
  BOXYARD_ACME_CA_FILE: 'acmeCaFile',
};

export const defaultDataDir = (): string => envPaths('boxyard', { suffix: '' }).data;

/** Pure: builds the config from an environment and CLI overrides (which win). Throws ZodError. */
export function loadConfig(
  env: Record<string, string | undefined>,
  overrides: Partial<Record<keyof Config, unknown>> = {},
): Config {
  const raw: Record<string, unknown> = { dataDir: defaultDataDir() };
  for (const [key, name] of Object.entries(ENV_KEYS))
    if (env[key] !== undefined && env[key] !== '') raw[name] = env[key];
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) raw[k] = v;
  return Config.parse(raw);
}

export const databaseFile = (c: Config): string => join(c.dataDir, 'boxyard.db');
/** The key TOTP secrets are sealed with (lib/secret-box.ts): back it up with the database. */
export const secretKeyFile = (c: Config): string => join(c.dataDir, 'secret.key');
