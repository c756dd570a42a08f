import type { LocalCaJson } from '../../../daemon/src/contract/wire/overview';
import { newCaSteps } from '../../../daemon/src/contract/lan';
import { CopyField } from './ui';
import { When } from './relative-time';

/**
 * `--tls auto`'s CA and its name constraints (docs/https.md): the names its certificate
 * leaves out, a new CA advised (an old CA without constraints, or names a new one would cover)
 * with the steps to make it, and a CA that `boxyard tls new-ca` made in place of another.
 */
export function LocalCaNote({ ca, server }: { ca: LocalCaJson; server: string }) {
  return (
    <>
      {ca.replaced && (
        <p>
          This CA was made by <code>boxyard tls new-ca</code> <When iso={ca.replaced.at} />
          {ca.replaced.previous_fingerprint && <> in place of the CA {ca.replaced.previous_fingerprint}</>}: clients
          that trusted that one must trust this one, with the setup below.
        </p>
      )}
      {ca.replace && (
        <div className="note" role="status" aria-label="Replace the local CA">
          {ca.replace === 'unconstrained' ? (
            <p>
              This CA has no name constraints (it was made before Boxyard gave its CAs them): whoever copies its key can
              make a certificate for any site, which every client that trusts it accepts. It keeps working; a new CA may
              certify only this server's names and LAN addresses.
            </p>
          ) : (
            <p>A new CA would cover names this one may not certify: {ca.names_outside.join(', ')}.</p>
          )}
          <p>To replace it, run on the server, restart it, then trust the new CA on every client:</p>
          <CopyField label="Replace the CA" lines value={newCaSteps(server, null).join('\n')} />
        </div>
      )}
      {!ca.replace && ca.names_outside.length > 0 && (
        <p className="muted">
          Left out of the certificate, outside the CA's name constraints: {ca.names_outside.join(', ')}.
        </p>
      )}
      {ca.name_constrained && (
        <p className="muted">
          The CA is name-constrained: it may certify only LAN names and addresses and this server's own names.
        </p>
      )}
    </>
  );
}
