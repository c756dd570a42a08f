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
 * A daemon as the commands handed to a client reach it: its URL and, on `--tls auto`, the file that holds its CA on
 * the client (`CLIENT_CA_FILE`, which `fetchCaLines` writes), or null where the client trusts its certificate already
 * (the user's own, ACME's) or it serves plain HTTP. Every command the web UI hands out is built from one.
 */
export interface ServerAccess {
  url: string;
  caFile: string | null;
}

/** Where the web UI's commands keep Boxyard's CA on a client: fetched and checked by `fetchCaLines`. */
export const CLIENT_CA_FILE = '~/.config/boxyard/ca.pem';

const trimmed = (url: string) => url.replace(/\/+$/, '');

/**
 * The trust step before any command that talks to a daemon on `--tls auto`, for a machine without Boxyard: fetch its
 * CA (not trusted yet, hence `-k`), then keep it only if it is one certificate whose SHA-256 fingerprint is the one
 * given (what the daemon printed at start and the web UI shows), else delete it. One certificate: `--cacert` trusts
 * every certificate in the file, and someone in between could append their own after the genuine one.
 */
export function fetchCaLines(server: string, fingerprint: string, file = CLIENT_CA_FILE): string[] {
  const dir = file.slice(0, file.lastIndexOf('/'));
  return [
    `mkdir -p ${dir} && curl -fsSk -o ${file} ${trimmed(server)}/ca.pem`,
    `[ "$(grep -c -- -----BEGIN ${file})" = 1 ] && openssl x509 -in ${file} -noout -fingerprint -sha256 | grep -qi '=${fingerprint}$' && echo 'CA checked' || { rm -f ${file}; echo 'Not the CA of this server: not trusted' >&2; false; }`,
  ];
}

/**
 * The trust step as lines to print (`boxyard mirror`'s lines for users), before commands that name `file`: what the
 * web UI's trust step (renderer/src/components/trust-step.tsx) says, as shell comments, then `fetchCaLines`.
 */
export function trustStepLines(server: string, fingerprint: string, file = CLIENT_CA_FILE): string[] {
  return [
    "# First, once on each machine: this server's HTTPS certificate is from its own CA. These lines fetch the CA into",
    `# ${file} and keep it only if its SHA-256 fingerprint is ${fingerprint}:`,
    ...fetchCaLines(server, fingerprint, file),
  ];
}

/** `boxyard agent`'s command line (`program`: `boxyard`, or `node boxyard-agent.mjs`, which the daemon serves). */
export function agentCommand(server: ServerAccess, token: string, program = 'boxyard'): string {
  const ca = server.caFile ? ` --ca-file ${server.caFile}` : '';
  return `${program} agent --url ${trimmed(server.url)}${ca} --token ${token}`;
}

/** Where a daemon serves `boxyard agent` as one file for Node ≥ 20 (agents/program-route.ts), and its name there. */
export const AGENT_PROGRAM_FILE = 'boxyard-agent.mjs';

/** Fetching the agent program from the daemon, on a machine with Node ≥ 20 and no Boxyard. */
export function agentProgramLine(server: ServerAccess): string {
  const ca = server.caFile ? ` --cacert ${server.caFile}` : '';
  return `curl -fsS${ca} -o ${AGENT_PROGRAM_FILE} ${trimmed(server.url)}/${AGENT_PROGRAM_FILE}`;
}

/** The clients' own ways to trust a CA file, one line each (vagrant and its Vagrantfile, curl, the agent). */
export function caFileLines(server: string, file: string): string[] {
  return [
    `# vagrant: vagrant box add --cacert ${file} ORG/BOX, or in a Vagrantfile: config.vm.box_download_ca_cert = File.expand_path("${file}")`,
    `# curl: curl --cacert ${file} ${trimmed(server)}/ORG/BOX`,
    agentCommand({ url: server, caFile: file }, '…'),
  ];
}

/**
 * How a client trusts a daemon on `--tls auto` (docs/https.md): `boxyard trust` prints these
 * after writing the bundle (which holds the system's CAs too, so the variables may point at it).
 */
export function trustLines(server: string, bundle: string): string[] {
  return [
    '# vagrant, Packer, Terraform, curl:',
    `export SSL_CERT_FILE=${bundle} CURL_CA_BUNDLE=${bundle}`,
    ...caFileLines(server, bundle),
  ];
}

/**
 * How a local CA is replaced by one with name constraints: the daemon's warning at
 * start and the overview page say these steps, `boxyard tls new-ca` the last two with the new
 * fingerprint. `dataDir` null: the daemon's own (the page does not show where it is). The command is
 * `npx boxyard`, as README's first steps install it (package.json's `bin`, in Boxyard's folder); a client
 * without Boxyard takes the trust step the web UI's pages show (`fetchCaLines`), never `npx boxyard` from the
 * npm registry, which would fetch whatever package has that name.
 */
/** `boxyard trust` for a machine where Boxyard is installed, as README's first steps install it (`npx boxyard`). */
export const trustCommand = (server: string, fingerprint: string): string =>
  `npx boxyard trust ${trimmed(server)} --fingerprint ${fingerprint.replace(/:/g, '')}`;

export function newCaSteps(server: string, dataDir: string | null, fingerprint = 'NEW'): string[] {
  return [
    `npx boxyard tls new-ca ${dataDir ? `--data ${dataDir}` : '--data DATA'}   # on the daemon's machine, in Boxyard's folder, with its --public-url and --allowed-hosts if it has them`,
    '# restart the daemon: it serves a certificate from the new CA',
    `${trustCommand(server, fingerprint)}   # again on every client where Boxyard is installed; elsewhere the web UI's "Trust this server" step`,
  ];
}
