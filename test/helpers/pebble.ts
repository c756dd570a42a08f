import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testCa } from './certificates';
import { freePort } from './ports';

/** Whether Debian's `pebble` (the ACME test server, with pebble-challtestsrv) is installed. */
export function pebbleInstalled(): boolean {
  return (
    spawnSync('pebble', ['-h'], { stdio: 'ignore' }).error === undefined &&
    spawnSync('pebble-challtestsrv', ['-h'], { stdio: 'ignore' }).error === undefined
  );
}

export interface Pebble {
  /** The ACME directory URL. */
  directory: string;
  /** The CA of pebble's own HTTPS (`--acme-ca-file`). */
  caFile: string;
  /** The root that pebble's certificates chain to (PEM), made anew at each start. */
  root(): Promise<string>;
  /** Stops the servers (the CA goes down); its files stay until stop(). */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Runs `cmd` until it prints `ready`. */
async function started(cmd: string, args: string[], env: Record<string, string>, ready: string): Promise<ChildProcess> {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd} did not start:\n${out}`)), 15_000);
    const onData = (b: Buffer) => {
      out += b.toString();
      if (out.includes(ready)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${cmd} exited with ${code}:\n${out}`));
    });
  });
  return child;
}

const stopped = (c: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGTERM');
  });

/**
 * pebble on 127.0.0.1, validating HTTP-01 challenges at `httpPort` (the daemon's `--http-port`),
 * with pebble-challtestsrv as its DNS server answering every name with 127.0.0.1 (and no IPv6):
 * nothing leaves the machine. No random sleeps or refused nonces, so runs are quick and repeatable.
 */
export async function startPebble(o: { httpPort: number }): Promise<Pebble> {
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-pebble-'));
  const ca = await testCa();
  const tls = await ca.issue(['localhost', '127.0.0.1'], 'pebble');
  const [dns, dnsAdmin, listen, admin, tlsPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const config = join(dir, 'pebble.json');
  writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${listen}`,
        managementListenAddress: `127.0.0.1:${admin}`,
        certificate: tls.cert,
        privateKey: tls.key,
        httpPort: o.httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }),
  );
  const chall = await started(
    'pebble-challtestsrv',
    [
      '-dns01',
      `127.0.0.1:${dns}`,
      '-http01',
      '',
      '-https01',
      '',
      '-tlsalpn01',
      '',
      '-management',
      `127.0.0.1:${dnsAdmin}`,
      '-defaultIPv4',
      '127.0.0.1',
      '-defaultIPv6',
      '',
    ],
    {},
    'Starting management server',
  );
  const pebble = await started(
    'pebble',
    ['-config', config, '-dnsserver', `127.0.0.1:${dns}`],
    {
      PEBBLE_VA_NOSLEEP: '1',
      PEBBLE_WFE_NONCEREJECT: '0',
      PEBBLE_AUTHZREUSE: '0',
    },
    'ACME directory available',
  ).catch(async (err: unknown) => {
    await stopped(chall);
    throw err;
  });
  const caPem = readFileSync(ca.caFile, 'utf8');
  const kill = () => Promise.all([stopped(pebble), stopped(chall)]).then(() => undefined);
  return {
    directory: `https://127.0.0.1:${listen}/dir`,
    caFile: ca.caFile,
    root: () =>
      new Promise((resolve, reject) => {
        get(`https://127.0.0.1:${admin}/roots/0`, { ca: caPem }, (res) => {
          let body = '';
          res.on('data', (b: Buffer) => {
            body += b.toString();
          });
          res.on('end', () =>
            res.statusCode === 200 ? resolve(body) : reject(new Error(`pebble /roots/0: ${res.statusCode}`)),
          );
        }).on('error', reject);
      }),
    kill,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
      rmSync(ca.dir, { recursive: true, force: true });
    },
  };
}
