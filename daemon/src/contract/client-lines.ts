/**
 * What to tell the users of boxes copied here (moving off HCP Vagrant): the lines that
 * point vagrant at this daemon instead. The CLI prints them after a mirror; the web UI's Move from
 * HCP Vagrant page shows them. Pure: `server` is the URL clients reach the daemon at.
 */
export function clientLines(server: string, boxes: readonly string[], anyPrivate: boolean): string[] {
  const base = server.replace(/\/+$/, '');
  const example = boxes[0] ?? 'ORG/BOX';
  return [
    '# On every machine that uses these boxes (vagrant reads the catalog from here, box names stay as they were):',
    `export VAGRANT_SERVER_URL=${base}`,
    ...(anyPrivate
      ? [
          '# Private boxes also need a Boxyard token (boxyard token create USER, or: vagrant cloud auth login):',
          'export VAGRANT_CLOUD_TOKEN=<your Boxyard token>',
        ]
      : []),
    '# Or, in a Vagrantfile, without the variable: keep config.vm.box and add the catalog URL',
    `config.vm.box = "${example}"`,
    `config.vm.box_url = "${base}/${example}"`,
  ];
}
