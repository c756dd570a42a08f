import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Option, type Command } from 'commander';
import { ApiError, BoxyardClient, collect, positiveInt, withServerOptions, type ServerOptions } from './client';
import { createMeter, type Meter, type Progress } from './meter';
import { BOXYARD } from '../../http/route-table';
import { pathTo } from '../../http/urls';
import type { MirrorPlanJson } from '../../contract/wire/mirror';
import { clientLines } from '../../contract/client-lines';
import { planRefusal, renderPlan } from './dry-run-text';
import { MIRROR_DEFAULTS } from '../../contract/bodies/mirror';
import { readCaFile } from '../../tls/client-fetch';
import { CLIENT_CA_FILE, trustStepLines } from '../../contract/lan';
import type { PublicCaAnswer } from '../../contract/wire/ca';

/** A mirror job as `GET /api/boxyard/mirror-jobs/:id` answers it (docs/mirroring.md). */
interface Job {
  id: string;
  state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  message: string | null;
  bytes_total: number;
  bytes_done: number;
  files_total: number;
  files_done: number;
  rate_bytes_per_second: number | null;
  eta_seconds: number | null;
  published: Array<{ box: string; versions: string[]; updated?: string[]; described?: string[]; revoked?: string[] }>;
  skipped: Array<{ box: string; reason: string }>;
}

interface MirrorOptions extends ServerOptions {
  upstream: string;
  upstreamToken?: string;
  /** A CA file the upstream's certificate chains to (another lab's Boxyard on --tls auto). */
  upstreamCa?: string;
  as?: string;
  versions?: string;
  latest?: number;
  provider?: string[];
  architecture?: string[];
  every?: number;
  keep?: number;
  private?: boolean;
  public?: boolean;
  followRevocations?: boolean;
  parallel?: number;
  dryRun?: boolean;
  detach?: boolean;
}

const FINISHED = new Set(['done', 'failed', 'cancelled']);
const POLL_MS = 500;

/**
 * An upstream is a URL or a folder written by `boxyard export`; a relative folder means one here,
 * so it is sent as an absolute path (the daemon has another working directory).
 */
export function upstreamUrl(value: string, cwd: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(value) || isAbsolute(value)) return value;
  const path = resolve(cwd, value);
  if (!existsSync(path)) throw new Error(`--upstream ${value} is neither a URL (https://…) nor an existing folder.`);
  return path;
}

/** The `POST /api/boxyard/mirrors` body; absent options are left to the daemon's defaults. */
export function mirrorBody(source: string, opts: MirrorOptions, cwd: string, ca?: string) {
  const list = (v?: string[]) => (v?.length ? v : undefined);
  return {
    mirror: {
      upstream: {
        url: upstreamUrl(opts.upstream, cwd),
        ...(opts.upstreamToken ? { token: opts.upstreamToken } : {}),
        ...(ca ? { ca } : {}),
      },
      source,
      target: opts.as,
      versions: opts.versions,
      latest: opts.latest,
      providers: list(opts.provider),
      architectures: list(opts.architecture),
      // Neither: as the upstream says (its box API); a catalog-only upstream read with a token: private.
      private: opts.private ? true : opts.public ? false : undefined,
      follow_revocations: opts.followRevocations ? true : undefined,
      parallel: opts.parallel,
      interval_minutes: opts.every,
      retain: opts.keep,
      run: true,
    },
  };
}

const progressOf = (j: Job): Progress => ({
  bytesDone: j.bytes_done,
  // Before the job has planned its files it cannot know their size.
  bytesTotal: j.bytes_total || j.files_total || FINISHED.has(j.state) ? j.bytes_total : null,
  filesDone: j.files_done,
  filesTotal: j.files_total,
  rate: j.rate_bytes_per_second,
  eta: j.eta_seconds,
  label: j.message ?? j.state,
});

/**
 * The lines for the users' machines (contract/client-lines.ts): on a daemon with its own CA (`--tls auto`), after the
 * trust step that fetches and checks that CA into the file they name (as the Move page shows them). The CA file this
 * CLI was given is on this machine: the users' machines keep their own (docs/https.md).
 */
async function usersLines(client: BoxyardClient, boxes: string[]): Promise<string[]> {
  let fingerprint: string | null;
  try {
    fingerprint = (await client.json<PublicCaAnswer>('GET', pathTo('boxyard', BOXYARD.ca, {}))).ca?.fingerprint ?? null;
  } catch (err) {
    return [`# Could not ask the daemon whether its certificate is from its own CA: ${(err as Error).message}`];
  }
  const server = { url: client.server, caFile: fingerprint ? CLIENT_CA_FILE : null };
  return [...(fingerprint ? trustStepLines(server.url, fingerprint) : []), ...clientLines(server, boxes, true)];
}

function published(j: Job, users: string[]): string {
  const boxes = j.published.filter((b) => b.versions.length);
  const lines = boxes.length
    ? boxes.map((b) => `published ${b.box} ${b.versions.join(', ')}`)
    : ['Nothing new: every selected version is already here.'];
  for (const b of j.published) {
    const followed = [
      b.updated?.length ? `updated ${b.updated.join(', ')}` : '',
      b.described?.length ? `release notes of ${b.described.join(', ')}` : '',
      b.revoked?.length ? `revoked ${b.revoked.join(', ')}` : '',
    ].filter(Boolean);
    if (followed.length) lines.push(`followed ${b.box}: ${followed.join('; ')}`);
  }
  for (const s of j.skipped) lines.push(`skipped ${s.box}: ${s.reason}`);
  return [...lines, '', ...users].join('\n');
}

/** Ctrl-C cancels the job (a second one leaves at once: the listener is gone). */
async function cancel(client: BoxyardClient, job: Job, meter: Meter): Promise<number> {
  meter.stop();
  try {
    await client.json('POST', pathTo('boxyard', BOXYARD.mirrorJobCancel, { id: job.id }));
    process.stderr.write(`boxyard: interrupted: mirror job ${job.id} cancelled\n`);
  } catch (err) {
    // 422: it finished meanwhile; say so, it is still an interruption.
    process.stderr.write(
      `boxyard: interrupted: ${err instanceof ApiError ? err.errors.join('; ') : (err as Error).message}\n`,
    );
  }
  return 130;
}

/** Polls the job until it finishes, with a progress bar; the exit status. */
async function follow(client: BoxyardClient, first: Job, out: NodeJS.WriteStream): Promise<number> {
  const meter = createMeter(out);
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once('SIGINT', onSigint);
  try {
    let job = first;
    while (!FINISHED.has(job.state)) {
      meter.update(progressOf(job));
      await sleep(POLL_MS, undefined, { signal: interrupt.signal }).catch(() => {});
      if (interrupt.signal.aborted) return await cancel(client, job, meter);
      job = (await client.json<{ job: Job }>('GET', pathTo('boxyard', BOXYARD.mirrorJob, { id: job.id }))).job;
    }
    meter.update(progressOf(job));
    meter.stop();
    if (job.state !== 'done') throw new Error(`mirror job ${job.id} ${job.state}: ${job.message ?? 'no reason given'}`);
    const users = await usersLines(
      client,
      job.published.map((b) => b.box),
    );
    out.write(`${published(job, users)}\n`);
    return 0;
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

async function runMirror(source: string, opts: MirrorOptions, out: NodeJS.WriteStream): Promise<number> {
  const client = new BoxyardClient(opts);
  const body = mirrorBody(source, opts, process.cwd(), opts.upstreamCa ? await readCaFile(opts.upstreamCa) : undefined);
  // The plan first: a refused token, a box the token cannot see or a disk too small show before anything is made.
  const { plan } = await client.json<{ plan: MirrorPlanJson }>(
    'POST',
    pathTo('boxyard', BOXYARD.mirrorPlans, {}),
    body,
  );
  // With --detach stdout is for scripts: the ids only.
  (opts.detach ? process.stderr : out).write(renderPlan(plan));
  const refusal = planRefusal(plan);
  if (refusal) throw new Error(refusal);
  if (opts.dryRun) return 0;
  const created = await client.json<{ mirror: { id: string; target: string }; job: Job | null }>(
    'POST',
    pathTo('boxyard', BOXYARD.mirrors, {}),
    body,
  );
  if (!created.job) throw new Error(`mirror ${created.mirror.id} was created, but the daemon started no job for it.`);
  if (opts.detach) {
    out.write(`mirror ${created.mirror.id}\njob ${created.job.id}\n`);
    return 0;
  }
  out.write(`mirroring ${source} into ${created.mirror.target} (mirror ${created.mirror.id}, job ${created.job.id})\n`);
  return follow(client, created.job, out);
}

/** `boxyard mirror`: creates a mirror on a running daemon, runs it, and follows its job. */
export function mirrorCommand(program: Command): void {
  withServerOptions(
    program
      .command('mirror <source>')
      .description(
        'copy boxes (SOURCE is ORG/BOX or ORG) from an upstream into the daemon, and keep them current (see docs/mirroring.md)',
      ),
  )
    .requiredOption(
      '--upstream <url>',
      'Vagrant Cloud / HCP Vagrant, another Boxyard, a catalog JSON URL, or a folder written by boxyard export',
    )
    .addOption(
      new Option('--upstream-token <token>', "the upstream's token (private boxes)").env('BOXYARD_UPSTREAM_TOKEN'),
    )
    .option(
      '--upstream-ca <file>',
      "a CA the upstream's certificate chains to, trusted for it alone (another lab's Boxyard on --tls auto: its /ca.pem)",
    )
    .option('--as <target>', 'local ORG/BOX (or ORG) to mirror into (default: SOURCE)')
    .addOption(
      new Option('--versions <range>', 'a version constraint, e.g. ">= 1.0, < 2.0" or "~> 1.2"').conflicts('latest'),
    )
    .addOption(new Option('--latest <n>', 'only the newest N versions').argParser(positiveInt))
    .option('--provider <name>', 'only this provider (repeat or comma-separate for several)', collect)
    .option('--architecture <arch>', 'only this architecture (repeat or comma-separate for several)', collect)
    .option('--every <minutes>', 'run again on this schedule', positiveInt)
    .option('--keep <n>', 'keep only the newest N mirrored versions', positiveInt)
    .addOption(new Option('--private', 'make the boxes private, whatever the upstream says').conflicts('public'))
    .option(
      '--public',
      'make the boxes public, whatever the upstream says (default: as the upstream says; a catalog read with a token: private)',
    )
    .option('--follow-revocations', 'revoke a mirrored version when the upstream revokes it')
    .option('--parallel <n>', `files downloaded at once (default ${MIRROR_DEFAULTS.parallel})`, positiveInt)
    .option(
      '--dry-run',
      'print the boxes, versions, files and bytes it would fetch and the free space after; change nothing',
    )
    .option('--detach', 'print the mirror and job ids and return at once')
    .action(async (source: string, opts: MirrorOptions) => {
      const code = await runMirror(source, opts, process.stdout);
      if (code !== 0) process.exit(code);
    });
}
