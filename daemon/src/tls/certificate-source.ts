import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Clock } from '../lib/clock';
import { AcmeIssuer } from './acme';
import { FileIssuer } from './file-issuer';
import type { CertificateSource, Issuer } from './issuer';
import { LocalCaIssuer } from './local-issuer';
import { ManagedCertificate } from './maintenance';
import { present } from '../lib/invariant';

/** The issuer the config asks for (`--tls`); null: plain HTTP. */
function issuerFor(config: Config, log: Logger): Issuer | null {
  if (config.tls === 'auto') return new LocalCaIssuer({ dataDir: config.dataDir, settings: config, log });
  if (config.tls === 'files') {
    const cert = present(config.tlsCert, 'the config requires --tls-cert with --tls files');
    const key = present(config.tlsKey, 'the config requires --tls-key with --tls files');
    return new FileIssuer({ cert, key, log });
  }
  if (config.tls === 'acme') {
    return new AcmeIssuer({
      dataDir: config.dataDir,
      name: new URL(present(config.publicUrl, 'the config requires --public-url with --tls acme')).hostname,
      directory: config.acmeDirectory,
      email: config.acmeEmail,
      caFile: config.acmeCaFile,
      log,
    });
  }
  return null;
}

/** The daemon's certificate, kept by the maintenance loop over the issuer the config asks for; null: plain HTTP. */
export function certificateSource(config: Config, log: Logger, clock: Clock): CertificateSource | null {
  const issuer = issuerFor(config, log);
  return issuer && new ManagedCertificate(issuer, { clock, log });
}
