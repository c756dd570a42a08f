import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Config } from '../config';
import { newCaSteps } from '../contract/lan';
import { LocalCa } from './local-ca';
import { permittedFor } from './name-constraints';

/**
 * `boxyard tls new-ca`: replaces `--tls auto`'s CA in DATA/tls with a new one whose name
 * constraints cover the LAN and the names the daemon is set up with (its --host, --public-url and
 * --allowed-hosts, as `serve` takes them, env BOXYARD_* too). The old CA's key and its server
 * certificate are removed; the daemon issues one from the new CA when it starts again, and every
 * client must trust the new CA (`boxyard trust` with the new fingerprint). Works on the folder,
 * not through the daemon: a running one goes on serving its current certificate until restarted.
 */
export function tlsCommands(program: Command, configFrom: (opts: Record<string, unknown>) => Config): void {
  const tls = program.command('tls').description('the local CA of --tls auto (docs/https.md)');
  tls
    .command('new-ca')
    .description('replace the local CA of --tls auto with a new, name-constrained one (clients must trust it again)')
    .option('--data <dir>', 'data folder (default: the platform app-data folder; env BOXYARD_DATA)')
    .option('--host <host>', 'the address the daemon listens on, as given to serve')
    .option('--port <port>', 'the port the daemon listens on, for the trust command printed')
    .option('--public-url <url>', "the daemon's --public-url: the new CA may certify its host")
    .option(
      '--allowed-hosts <names>',
      "the daemon's --allowed-hosts: the new CA may certify them (`.example.org` with subdomains)",
    )
    .action(async (opts: Record<string, unknown>) => {
      const config = configFrom({ ...opts, quiet: true });
      const permitted = permittedFor(config);
      const ca = await LocalCa.replace(join(config.dataDir, 'tls'), 'Boxyard', permitted);
      const server = config.publicUrl ?? `https://${hostname()}:${config.port}`;
      const lines = [
        `made a new local CA in ${ca.dir}; the CA before it, its key and its server certificate are removed`,
        `fingerprint (SHA-256): ${ca.fingerprint}`,
        `it may certify DNS names ${permitted.dns.join(', ')} (each with the names under it) and addresses ${permitted.ip.join(', ')}`,
        'next:',
        ...newCaSteps(server, config.dataDir, ca.fingerprint).slice(1),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
