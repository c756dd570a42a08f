import { boxAddSnippet, vagrantfileSnippet } from '../../api/boxes';
import type { BoxJson } from '../../../../daemon/src/contract/wire/registry';
import { CopyField, Section } from '../ui';
import { plural } from './counts';

/**
 * How to use the box from this daemon, as this browser reaches it (the origin a colleague on the
 * LAN typed is the one their vagrant can reach too): the `vagrant box add` line, and a
 * Vagrantfile pinned to the current release whose `box_url` is this daemon's catalog of the box.
 */
export function UseIt({ box }: { box: BoxJson }) {
  const origin = window.location.origin;
  const current = box.current_version?.version ?? null;
  return (
    <Section title="Use it" actions={<span className="muted">{plural(box.downloads, 'download')}</span>}>
      <CopyField label="vagrant box add" value={boxAddSnippet(origin, box.tag, box.private)} />
      {current ? (
        <CopyField label="Vagrantfile" lines value={vagrantfileSnippet(origin, box.tag, current)} />
      ) : (
        <p className="muted">Vagrant only sees released versions: release one below.</p>
      )}
      {box.private && current && (
        <p className="muted small-text">
          A private box needs a token: run vagrant with <code>VAGRANT_SERVER_URL={origin}</code> and{' '}
          <code>VAGRANT_CLOUD_TOKEN</code> set.
        </p>
      )}
    </Section>
  );
}
