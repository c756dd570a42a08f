import { Command } from 'commander';
import { LETS_ENCRYPT, loadConfig, type Config } from './config';
import { serve } from './main';
import { buildDeps, type Deps } from './deps';
import { VERSION } from './version';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { trust } from './tls/trust';
import { tlsCommands } from './tls/cli';
import { addAgentCommand } from './agents/cli';
import { mirrorCommand } from './mirror/cli/mirror';
import { importCommand } from './mirror/cli/import';
import { exportCommand } from './mirror/cli/export';
import { dataCommands } from './data/cli-data';
import { accountCommands } from './auth/cli-accounts';
import { orgCommands } from './orgs/cli';
import { servicePrincipalCommands } from './orgs/cli-principals';
import { damagedDatabaseError } from './store/storage-errors';

/** Global options every command shares; env BOXYARD_* fills what flags leave out. */
const withDataOptions = (c: Command) =>
  c
    .option('--data <dir>', 'data folder (default: the platform app-data folder; env BOXYARD_DATA)')
    .option(
      '--database <url>',
      "PostgreSQL instead of the data folder's SQLite: postgres://… (env BOXYARD_DATABASE_URL)",
    )
    .option(
      '--blobs <url>',
      'box files in an S3-compatible bucket: s3://BUCKET/PREFIX?endpoint=…&region=… (env BOXYARD_BLOBS)',
    );

function configFrom(opts: Record<string, unknown>): Config {
  return loadConfig(process.env, {
    dataDir: opts.data,
    database: opts.database,
    blobs: opts.blobs,
    blobsRedirect: opts.blobsRedirect,
    host: opts.host,
    port: opts.port,
    publicUrl: opts.publicUrl,
    allowedHosts: opts.allowedHosts,
    maintenance: opts.maintenance,
    offline: opts.offline,
    upstream: opts.upstream,
    tls: opts.tls,
    tlsCert: opts.tlsCert,
    tlsKey: opts.tlsKey,
    httpPort: opts.httpPort,
    acmeDirectory: opts.acmeDirectory,
    acmeEmail: opts.acmeEmail,
    acmeCaFile: opts.acmeCaFile,
    logLevel: opts.logLevel ?? (opts.quiet ? 'silent' : undefined),
  });
}

/** Runs an offline admin action against the data folder (works while the daemon runs: SQLite WAL). */
async function withDeps<T>(opts: Record<string, unknown>, fn: (deps: Deps) => Promise<T>): Promise<T> {
  const deps = await buildDeps(configFrom({ ...opts, quiet: true }));
  try {
    return await fn(deps);
  } finally {
    await deps.close();
  }
}

const print = (v: unknown): void =>
  void process.stdout.write(`${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}\n`);

export function buildCli(): Command {
  const program = new Command('boxyard')
    .version(VERSION)
    .description('Self-hosted Vagrant box registry and agent pools');
  // `boxyard import … --version 1.0.0` is the import's option, not the program's -V/--version.
  program.enablePositionalOptions();

  withDataOptions(program.command('serve').description('run the daemon'))
    .option('--host <host>', 'address to bind (0.0.0.0 serves the LAN)', undefined)
    .option('--port <port>', 'port', undefined)
    .option('--public-url <url>', 'base URL clients reach the daemon at (used in upload and download links)')
    .option(
      '--allowed-hosts <names>',
      'more Host names to answer, comma-separated (`.example.org` with subdomains, `*` any; env BOXYARD_ALLOWED_HOSTS)',
    )
    .option('--maintenance', 'start in maintenance mode')
    .option('--offline', 'open no outbound connection at all: mirror jobs wait, the cache serves what it holds')
    .option('--blobs-redirect', 'with --blobs: answer downloads with a redirect to a short-lived presigned URL')
    .option(
      '--upstream <url>',
      'pull-through cache: answer boxes that are not local from this upstream (token: env BOXYARD_UPSTREAM_TOKEN)',
    )
    .option(
      '--tls <mode>',
      "HTTPS: auto (a certificate from the daemon's own CA, kept in the data folder), acme (from Let's Encrypt or --acme-directory, for --public-url https://NAME) or off (env BOXYARD_TLS)",
    )
    .option(
      '--tls-cert <file>',
      'HTTPS with your own certificate (PEM, leaf first; reloaded on SIGHUP and when it changes)',
    )
    .option('--tls-key <file>', 'the key of --tls-cert (PEM)')
    .option(
      '--http-port <port>',
      "with HTTPS: a plain-HTTP port that redirects browsers' pages to HTTPS, refuses API calls and downloads, and answers ACME's HTTP-01 challenges (80 with --tls acme)",
    )
    .option(
      '--acme-directory <url>',
      `with --tls acme: the ACME CA's directory, whose terms you agree to (default Let's Encrypt: ${LETS_ENCRYPT}; env BOXYARD_ACME_DIRECTORY)`,
    )
    .option(
      '--acme-email <address>',
      'with --tls acme: where the CA may write about the certificate (env BOXYARD_ACME_EMAIL)',
    )
    .option(
      '--acme-ca-file <file>',
      "with --tls acme: the CA of a private ACME server's own HTTPS (step-ca, pebble; env BOXYARD_ACME_CA_FILE)",
    )
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent')
    .action(async (opts) => serve(configFrom(opts)));

  // Users (auth/cli-accounts.ts: passwords from a prompt or --password-stdin, never argv) and organizations
  // (orgs/cli.ts).
  accountCommands(program, withDeps);
  orgCommands(program, withDeps);
  servicePrincipalCommands(program, withDeps);

  const token = program.command('token').description('manage API tokens');
  withDataOptions(token.command('create <username>'))
    .option('--description <text>', '', 'created with boxyard token create')
    .action((name, opts) =>
      withDeps(opts, async (deps) =>
        print((await deps.tokens.create(await deps.accounts.userNamed(name), opts.description)).token),
      ),
    );
  withDataOptions(token.command('list <username>')).action((name, opts) =>
    withDeps(opts, async (deps) => {
      for (const t of await deps.tokens.list(await deps.accounts.userNamed(name)))
        print(`${t.id}  ${t.created_at}  last used ${t.last_used_at ?? 'never'}  ${t.description}`);
    }),
  );
  withDataOptions(token.command('revoke <id>')).action((id, opts) =>
    withDeps(opts, async (deps) => {
      print((await deps.tokens.revoke(id)) ? `revoked ${id}` : `no token ${id}`);
    }),
  );

  // The run-time switches the UI and /api/boxyard/settings change, for scripts and the desktop tray:
  // written to the data folder, which a running daemon sees at its next request, or within 50 ms while requests keep
  // coming (store/cache/table-versions.ts CATCH_UP_MS).
  const onOff = (v: string) => {
    if (v !== 'on' && v !== 'off') throw new Error(`expected on or off, not "${v}"`);
    return v === 'on';
  };
  withDataOptions(
    program
      .command('settings')
      .description('show the run-time settings as JSON; --offline/--maintenance on|off change them'),
  )
    .option(
      '--offline <on|off>',
      'open no outbound connection (mirror jobs wait, the cache serves what it holds)',
      onOff,
    )
    .option('--maintenance <on|off>', 'maintenance mode: the APIs answer 503 until it is switched off', onOff)
    .action((opts) =>
      withDeps({ data: opts.data }, async (deps) => {
        const patch = {
          ...(opts.offline === undefined ? {} : { offline: opts.offline as boolean }),
          ...(opts.maintenance === undefined ? {} : { maintenance: opts.maintenance as boolean }),
        };
        print(Object.keys(patch).length ? await deps.settings.update(patch) : await deps.settings.get());
      }),
    );

  addAgentCommand(program);

  program
    .command('trust <url>')
    .description(
      'trust a daemon on --tls auto: fetch its CA, check its fingerprint, write a CA bundle for client tools (docs/https.md)',
    )
    .requiredOption('--fingerprint <sha256>', 'the CA fingerprint the daemon printed at start (colons optional)')
    .option('--out <file>', 'the CA bundle to write', join(homedir(), '.config', 'boxyard', 'ca-bundle.pem'))
    .action(async (url: string, opts: { fingerprint: string; out: string }) => {
      for (const line of await trust(url, opts.fingerprint, opts.out)) print(line);
    });

  // The local CA of --tls auto: a new one with name constraints (tls/cli.ts).
  tlsCommands(program, configFrom);

  // Mirroring, import and export talk to a running daemon over HTTP (docs/mirroring.md).
  mirrorCommand(program);
  importCommand(program);
  exportCommand(program);
  // Backup, restore and check work on the data folder itself (docs/operations-and-security.md).
  dataCommands(program, configFrom);

  return program;
}

buildCli()
  .parseAsync(process.argv)
  .catch((err: unknown) => {
    // A damaged database met outside the start's check (a CLI command, a page the check had not reached) says what to
    // do.
    const message = damagedDatabaseError(err)?.message ?? (err instanceof Error ? err.message : String(err));
    process.stderr.write(`boxyard: ${message}\n`);
    process.exit(1);
  });
