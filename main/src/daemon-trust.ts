import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { LOCAL_CA_FILE } from '../../daemon/src/contract/lan';

/** What Electron's `setCertificateVerifyProc` asks about, as far as this reads it. */
export interface VerifyRequest {
  hostname: string;
  certificate: { data: string };
}

/** Electron's answers: 0 trusts the certificate, -3 keeps Chromium's own verdict. */
const TRUSTED = 0;
const CHROMIUM_DECIDES = -3;

/**
 * The app window trusts the daemon it started, for the host the window loads and that host alone:
 * on `--tls auto` a server certificate issued by the CA in the daemon's data folder, within its
 * dates, naming that host; with your own or an ACME certificate (`servedFile` names it: it names
 * the public host, not the address the window loads) exactly that certificate, within its dates.
 * Every other certificate is Chromium's to judge, as in any browser; nothing is trusted system-wide.
 */
export function daemonCertificateVerifier(opts: {
  dataDir: string;
  daemonHost: () => string | null;
  servedFile?: () => string | null;
  now?: () => Date;
}) {
  const trusted = (req: VerifyRequest): boolean => {
    if (req.hostname !== opts.daemonHost()) return false;
    try {
      const leaf = new X509Certificate(req.certificate.data);
      const now = opts.now?.() ?? new Date();
      if (new Date(leaf.validFrom) > now || now >= new Date(leaf.validTo)) return false;
      const served = opts.servedFile?.();
      if (served) return new X509Certificate(readFileSync(served, 'utf8')).fingerprint256 === leaf.fingerprint256;
      const ca = new X509Certificate(readFileSync(join(opts.dataDir, LOCAL_CA_FILE), 'utf8'));
      const named = isIP(req.hostname) ? leaf.checkIP(req.hostname) : leaf.checkHost(req.hostname);
      return leaf.checkIssued(ca) && leaf.verify(ca.publicKey) && named !== undefined;
    } catch {
      return false;
    }
  };
  return (req: VerifyRequest, callback: (code: number) => void): void =>
    callback(trusted(req) ? TRUSTED : CHROMIUM_DECIDES);
}
