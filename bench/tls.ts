/**
 * HTTPS, against baselines serving the same certificate chain and key, all with the
 * same cipher (curl asks TLS 1.3 TLS_AES_256_GCM_SHA384 of each side): downloads with curl
 * (1 stream, 8 parallel) against nginx over TLS serving the same blob file, uploads with `curl -T`
 * against a bare Node HTTPS sink, the API with wrk against Koa's fixed JSON over HTTPS, and the
 * handshake: full and resumed (session tickets) with `openssl s_time`, against nginx. The daemon
 * runs `--tls auto`; the baselines use its certificate (DATA/tls), and curl trusts its CA only.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientFetch } from '../daemon/src/tls/client-fetch';
import { adminToken, api, freePort, makeFile, run, startBaseline, startDaemon, startNginx, type Proc } from './measure';
import { rssSampler } from './proc-stats';
import { best, blobFile, downloadRounds, prepare, uploadRoundCount, uploadRounds } from './transfers';
import { alternating, wrk } from './api';
import { fmt, mibps, ms, ratioRow, type Row } from './report';

const CIPHER = 'TLS_AES_256_GCM_SHA384';

/**
 * `openssl s_time` for `seconds`, each connection asking GET /healthz (TLS 1.3 sends its session
 * ticket after the handshake: a client must read to get one): connections per second, each a full
 * handshake or resuming the first one's session, and how many were resumed (s_time marks each `r`).
 */
async function handshakes(
  port: number,
  reuse: boolean,
  seconds: number,
): Promise<{ rate: number; resumed: number; total: number }> {
  const out = await run(
    'openssl',
    [
      's_time',
      '-connect',
      `127.0.0.1:${port}`,
      '-tls1_3',
      '-ciphersuites',
      CIPHER,
      reuse ? '-reuse' : '-new',
      '-time',
      String(seconds),
      '-www',
      '/healthz',
    ],
    { timeoutMs: (seconds + 30) * 1000 },
  );
  const m = /(\d+) connections in (\d+) real seconds/.exec(out);
  if (!m) throw new Error(`unexpected openssl s_time output:\n${out}`);
  const marks = out.slice(out.indexOf('starting') + 'starting'.length, out.search(/\d+ connections in/));
  return { rate: Number(m[1]) / Number(m[2]), resumed: (marks.match(/r/g) ?? []).length, total: Number(m[1]) };
}

export async function tlsTransfers(work: string): Promise<Row[]> {
  const sizeMb = Number(process.env.BENCH_SIZE_MB ?? 1024);
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
  const upRounds = uploadRoundCount();
  const duration = Number(process.env.BENCH_WRK_SECONDS ?? 10);
  const file = join(work, 'tls-file.box');
  process.stderr.write(`tls: writing a ${sizeMb} MiB file\n`);
  await makeFile(file, sizeMb);
  const size = statSync(file).size;
  mkdirSync(join(work, 'tls-sink'));
  const dataDir = join(work, 'tls-data');
  const daemon = await startDaemon(dataDir, { args: ['--tls', 'auto'] });
  const procs: Proc[] = [daemon];
  try {
    // The daemon's chain (leaf, then its CA) and key, for every baseline; curl trusts the CA alone.
    const caFile = join(dataDir, 'tls', 'ca.pem');
    const chain = join(work, 'tls-chain.pem');
    writeFileSync(
      chain,
      `${readFileSync(join(dataDir, 'tls', 'server.pem'), 'utf8').trim()}\n${readFileSync(caFile, 'utf8')}`,
    );
    const cert = { cert: chain, key: join(dataDir, 'tls', 'server-key.pem') };
    const tls = ['--cacert', caFile, '--tlsv1.3', '--tls13-ciphers', CIPHER];
    const send = await clientFetch(caFile);
    const token = await adminToken(daemon.url, send);
    const uploads = await prepare(daemon.url, token, upRounds, send);
    const sink = await startBaseline('node-sink.mjs', [join(work, 'tls-sink')], cert);
    procs.push(sink);
    let rss = rssSampler(daemon.pid);

    const up = await uploadRounds({ part: 'tls', uploads, sinkUrl: sink.url, file, size, rounds: upRounds, curl: tls });
    const box = `/api/v1/box/admin/bench`;
    await api(daemon.url, 'PUT', `${box}/version/1.0.0/release`, { token, send });
    const shown = await api<{ download_url: string; checksum: string }>(
      daemon.url,
      'GET',
      `${box}/version/1.0.0/provider/virtualbox`,
      {
        token,
        send,
      },
    );
    const url = shown.download_url;
    const upPeak = rss.stop();
    rss = rssSampler(daemon.pid);

    const port = await freePort();
    const nginxDir = join(work, 'tls-nginx');
    mkdirSync(nginxDir);
    procs.push(await startNginx(nginxDir, port, { '/file.box': blobFile(dataDir, shown.checksum) }, cert));
    const nginxUrl = `https://127.0.0.1:${port}/file.box`;
    const { d, n } = await downloadRounds({ part: 'tls', url, baseUrl: nginxUrl, size, rounds, curl: tls });
    const downPeak = rss.stop();

    // The API: the catalog and the box answer, each against Koa answering the same body over HTTPS.
    const paths = ['/admin/bench', box];
    const bodies = await Promise.all(
      paths.map(async (p, i) => {
        const f = join(work, `tls-body-${i}.json`);
        writeFileSync(f, JSON.stringify(await api(daemon.url, 'GET', p, { token, send })));
        return f;
      }),
    );
    const koa = await startBaseline('koa-fixed.mjs', bodies, cert);
    procs.push(koa);
    const headers = [`Authorization: Bearer ${token}`, 'Accept: application/json'];
    const apiRows: Row[] = [];
    for (const [i, p] of paths.entries()) {
      process.stderr.write(`tls: api ${p}\n`);
      await wrk(daemon.url + p, headers, 1);
      await wrk(`${koa.url}/${i}`, headers, 1);
      const [ours, base] = await alternating(duration, [daemon.url + p, `${koa.url}/${i}`], headers);
      const row = ratioRow(
        `HTTPS \`GET ${p === box ? '/api/v1/box/ORG/BOX' : '/ORG/BOX'}\` (wrk -t1 -c10, keep-alive)`,
        `${fmt(ours.rps)} req/s, p99 ${ms(ours.p99)}`,
        `Koa fixed JSON over HTTPS ${fmt(base.rps)} req/s`,
        ours.rps,
        base.rps,
        0.4,
      );
      if (ours.errors || base.errors) {
        row.note = [ours.errors, base.errors].filter(Boolean).join('; ');
        row.pass = false;
      }
      apiRows.push(row);
    }

    process.stderr.write('tls: handshakes\n');
    const hs = 4;
    const ours = Number(new URL(daemon.url).port);
    const [full, resumed, nFull, nResumed] = [
      await handshakes(ours, false, hs),
      await handshakes(ours, true, hs),
      await handshakes(port, false, hs),
      await handshakes(port, true, hs),
    ];

    const label = sizeMb % 1024 ? `${fmt(sizeMb)} MiB` : `${fmt(sizeMb / 1024)} GiB`;
    const row = (m: string, v: number[], b: number[], base: string) =>
      ratioRow(m, mibps(best(v)), `${base} ${mibps(best(b))}`, best(v), best(b), 0.7);
    return [
      row(`HTTPS download ${label} with curl, 1 stream`, d.one, n.one, 'nginx TLS'),
      row('HTTPS download, 8 parallel curl streams (aggregate)', d.eight, n.eight, 'nginx TLS'),
      {
        ...row(
          `HTTPS upload ${label} with curl -T (hashed, fsynced)`,
          up.daemon,
          up.base,
          'bare Node HTTPS stream-to-file + fsync',
        ),
        note: `MiB/s per round: Boxyard ${up.daemon.map((x) => fmt(x)).join(', ')}; bare Node ${up.base.map((x) => fmt(x)).join(', ')}`,
      },
      ...apiRows,
      {
        measure:
          'TLS connections/s, full handshake / resumed with a session ticket (`openssl s_time -new` / `-reuse -www /healthz`, 4 s each)',
        value: `${fmt(full.rate)} / ${fmt(resumed.rate)} (${fmt(resumed.resumed)} of ${fmt(resumed.total)} resumed)`,
        baseline: `nginx ${fmt(nFull.rate)} / ${fmt(nResumed.rate)}`,
        ratio: nResumed.rate > 0 ? resumed.rate / nResumed.rate : null,
        // The rates are for the record: each connection also asks GET /healthz, which the daemon
        // answers from its health checks and nginx with a static 404.
        goal: 'every reconnection resumed (rates: informational)',
        pass: resumed.total > 0 && resumed.resumed === resumed.total,
      },
      {
        measure: 'daemon RSS peak during HTTPS transfers (uploads, downloads)',
        value: `${fmt(Math.max(upPeak, downPeak))} MiB (${fmt(upPeak)}, ${fmt(downPeak)})`,
        baseline: '—',
        ratio: null,
        goal: '< 150 MiB',
        pass: Math.max(upPeak, downPeak) < 150,
      },
    ];
  } finally {
    for (const p of procs.reverse()) await p.stop();
  }
}
