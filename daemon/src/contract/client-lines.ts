import type { ServerAccess } from './lan';

/**
 * The lines that point vagrant (and curl) at this daemon: the one builder of each, for the web UI's box page, its
 * Move from HCP Vagrant page and `boxyard mirror`'s printed hints. Pure: `server` is how clients reach the daemon
 * (the URL, and the CA file they trust it with on `--tls auto`).
 */

const base = (server: ServerAccess) => server.url.replace(/\/+$/, '');

/** What a user is told to put in place of a Boxyard API token in these lines. */
export const TOKEN_PLACEHOLDER = '<your Boxyard token>';

/** The box's catalog on this daemon: what `vagrant box add` reads and `config.vm.box_url` points at. */
export const catalogUrl = (server: ServerAccess, tag: string): string =>
  `${base(server)}/${tag.split('/').map(encodeURIComponent).join('/')}`;

/** `vagrant box add` of a box from this daemon, with its CA and, for a private box, a token to fill in. */
export function boxAddCommand(server: ServerAccess, tag: string, isPrivate: boolean): string {
  const token = isPrivate ? ` VAGRANT_CLOUD_TOKEN=${TOKEN_PLACEHOLDER}` : '';
  const ca = server.caFile ? ` --cacert ${server.caFile}` : '';
  return `VAGRANT_SERVER_URL=${base(server)}${token} vagrant box add${ca} ${tag}`;
}

/** Reading the box's catalog with curl: what vagrant reads first, to check a machine reaches it. */
export function catalogCurl(server: ServerAccess, tag: string, isPrivate: boolean): string {
  const ca = server.caFile ? ` --cacert ${server.caFile}` : '';
  const token = isPrivate ? ` -H "Authorization: Bearer ${TOKEN_PLACEHOLDER}"` : '';
  return `curl -fsS${ca}${token} ${catalogUrl(server, tag)}`;
}

/** The Vagrantfile lines that take a box from this daemon's catalog (`File.expand_path`: Ruby does not read `~`). */
function vagrantfileBoxLines(server: ServerAccess, tag: string, version: string | null, indent: string): string[] {
  return [
    `${indent}config.vm.box = "${tag}"`,
    ...(version ? [`${indent}config.vm.box_version = "${version}"`] : []),
    `${indent}config.vm.box_url = "${catalogUrl(server, tag)}"`,
    ...(server.caFile ? [`${indent}config.vm.box_download_ca_cert = File.expand_path("${server.caFile}")`] : []),
  ];
}

/** A Vagrantfile using the box at a version, from this daemon's catalog. */
export function vagrantfile(server: ServerAccess, tag: string, version: string | null): string {
  return ['Vagrant.configure("2") do |config|', ...vagrantfileBoxLines(server, tag, version, '  '), 'end'].join('\n');
}

/**
 * What to tell the users of boxes copied here (moving off HCP Vagrant): the lines that
 * point vagrant at this daemon instead. The CLI prints them after a mirror; the web UI's Move from
 * HCP Vagrant page shows them.
 */
export function clientLines(server: ServerAccess, boxes: readonly string[], anyPrivate: boolean): string[] {
  const example = boxes[0] ?? 'ORG/BOX';
  return [
    '# On every machine that uses these boxes (vagrant reads the catalog from here, box names stay as they were):',
    `export VAGRANT_SERVER_URL=${base(server)}`,
    ...(anyPrivate
      ? [
          '# Private boxes also need a Boxyard token (boxyard token create USER, or: vagrant cloud auth login):',
          `export VAGRANT_CLOUD_TOKEN=${TOKEN_PLACEHOLDER}`,
        ]
      : []),
    ...(server.caFile ? [`vagrant box add --cacert ${server.caFile} ${example}   # and so each box`] : []),
    '# Or, in a Vagrantfile, without the variable: keep config.vm.box and add the catalog URL',
    ...vagrantfileBoxLines(server, example, null, ''),
  ];
}
