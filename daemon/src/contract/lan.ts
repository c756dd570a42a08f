/**
 * Where `--tls auto` keeps its CA certificate in the data folder (tls/local-ca.ts), which the
 * desktop app's window trusts for its daemon (main/src/daemon-trust.ts).
 */
export const LOCAL_CA_FILE = 'tls/ca.pem';
/** Where `--tls acme` keeps the certificate it obtained (tls/acme.ts): the desktop window trusts exactly it. */
export const ACME_CERT_FILE = 'tls/acme/cert.pem';

/** A network address as Node's `os.networkInterfaces()` lists it, as far as `lanUrls` reads it. */
export interface InterfaceAddress {
  address: string;
  family: string;
  internal: boolean;
}

/**
 * The URLs colleagues use to reach this machine's daemon: one per external IPv4 address (what a
 * LAN's DHCP hands out; link-local and loopback addresses are no use to another machine). None
 * while LAN access is off, since the daemon then listens on 127.0.0.1 only. The desktop app's
 * welcome screen and tray (main/) and the daemon's overview page both show them.
 */
export function lanUrls(
  lanAccess: boolean,
  port: number,
  interfaces: Partial<Record<string, InterfaceAddress[]>>,
  scheme: 'http' | 'https' = 'http',
): string[] {
  if (!lanAccess) return [];
  return Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal && !a.address.startsWith('169.254.'))
    .map((a) => `${scheme}://${a.address}:${port}`);
}

/**
 * How a client trusts a daemon on `--tls auto` (docs/https.md): `boxyard trust` prints these
 * after writing the bundle, the overview page shows them with the command that writes it.
 */
export function trustLines(server: string, bundle: string): string[] {
  const base = server.replace(/\/+$/, '');
  return [
    '# vagrant, Packer, Terraform, curl:',
    `export SSL_CERT_FILE=${bundle} CURL_CA_BUNDLE=${bundle}`,
    `# or per box: vagrant box add --cacert ${bundle} …, or config.vm.box_download_ca_cert = "${bundle}"`,
    `boxyard agent --url ${base} --ca-file ${bundle} …`,
  ];
}

/**
 * How a local CA is replaced by one with name constraints: the daemon's warning at
 * start and the overview page say these steps, `boxyard tls new-ca` the last two with the new
 * fingerprint. `dataDir` null: the daemon's own (the page does not show where it is).
 */
export function newCaSteps(server: string, dataDir: string | null, fingerprint = 'NEW'): string[] {
  return [
    `boxyard tls new-ca ${dataDir ? `--data ${dataDir}` : '--data DATA'}   # on the daemon's machine, with its --public-url and --allowed-hosts if it has them`,
    '# restart the daemon: it serves a certificate from the new CA',
    `npx boxyard trust ${server.replace(/\/+$/, '')} --fingerprint ${fingerprint.replace(/:/g, '')}   # on every client, again`,
  ];
}
