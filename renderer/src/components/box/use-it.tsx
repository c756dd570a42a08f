import { Link } from 'react-router-dom';
import type { BoxJson } from '../../../../daemon/src/contract/wire/registry';
import {
  boxAddCommand,
  catalogCurl,
  TOKEN_PLACEHOLDER,
  vagrantfile,
} from '../../../../daemon/src/contract/client-lines';
import { useServerAccess } from '../../api/server-access';
import { TrustStep } from '../trust-step';
import { CopyField, Loading, Section } from '../ui';
import { plural } from './counts';
import { TOKENS_ANCHOR } from '../tokens/api-tokens';

/** Where a private box's reader gets the token the commands ask for: their API tokens, in Settings. */
function TokenNote() {
  return (
    <p className="muted small-text with-links">
      A private box needs a token: replace <code>{TOKEN_PLACEHOLDER}</code> with an API token, which you make under{' '}
      <Link to={`/settings#${TOKENS_ANCHOR}`}>Settings → API tokens</Link>.
    </p>
  );
}

/**
 * How to use the box from this daemon, as this browser reaches it (the origin a colleague on the LAN typed is the one
 * their vagrant can reach too): the trust step under the daemon's own CA, the `vagrant box add` line, the catalog
 * with curl, and a Vagrantfile pinned to the current release. Every line is contract/client-lines.ts'.
 */
export function UseIt({ box }: { box: BoxJson }) {
  const { server, fingerprint, ready } = useServerAccess();
  const current = box.current_version?.version ?? null;
  return (
    <Section title="Use it" actions={<span className="muted">{plural(box.downloads, 'download')}</span>}>
      {!ready ? (
        <Loading what="how to reach this server" />
      ) : (
        <>
          <TrustStep server={server} fingerprint={fingerprint} />
          {box.private && <TokenNote />}
          <CopyField label="vagrant box add" value={boxAddCommand(server, box.tag, box.private)} />
          <CopyField label="Catalog (curl)" value={catalogCurl(server, box.tag, box.private)} />
          {current ? (
            <CopyField label="Vagrantfile" lines value={vagrantfile(server, box.tag, current)} />
          ) : (
            <p className="muted">Vagrant only sees released versions: release one below.</p>
          )}
        </>
      )}
    </Section>
  );
}
