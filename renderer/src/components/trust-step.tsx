import type { ReactNode } from 'react';
import { fetchCaLines, type ServerAccess } from '../../../daemon/src/contract/lan';
import { CopyField } from './ui';

/**
 * "Trust this server", before the commands of a page, when the daemon serves HTTPS with its own CA (`--tls auto`):
 * the CA (/ca.pem), its SHA-256 fingerprint, and the lines that fetch it on a client and keep it only if it is that
 * one (contract/lan.ts `fetchCaLines`), into the file the commands below name. Nothing under the user's own
 * certificate, ACME's or plain HTTP: their clients need no trust step.
 */
export function TrustStep({
  server,
  fingerprint,
  what = 'the commands below',
}: {
  server: ServerAccess;
  fingerprint: string | null;
  what?: ReactNode;
}) {
  if (!fingerprint || !server.caFile) return null;
  return (
    <div className="trust-step">
      <h3>Trust this server</h3>
      <p className="with-links">
        This server's HTTPS certificate is from its own CA, which your machine does not know yet. Before {what}, run
        these lines there once: they fetch <a href="/ca.pem">the CA (/ca.pem)</a> into <code>{server.caFile}</code> and
        keep it only if its SHA-256 fingerprint is this one. Compare it with the fingerprint your administrator gives
        you (the server prints it when it starts).
      </p>
      <CopyField label="CA fingerprint (SHA-256)" value={fingerprint} />
      <CopyField
        label="Fetch and check the CA"
        lines
        value={fetchCaLines(server.url, fingerprint, server.caFile).join('\n')}
      />
    </div>
  );
}
