import { webcrypto } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { LocalCa } from '../../daemon/src/tls/local-ca';

/** A CA of the test's own that issues "your own certificate" files for `--tls-cert/--tls-key`. */
export async function testCa(): Promise<{
  dir: string;
  caFile: string;
  issue(names: string[], file: string): Promise<{ cert: string; key: string }>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-certs-'));
  const ca = await LocalCa.open(join(dir, 'ca'), 'Test', null);
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, ca.certPem);
  return {
    dir,
    caFile,
    async issue(names, file) {
      // LocalCa keeps its last certificate in its folder: each is copied out under its own name.
      const c = await ca.issue(names);
      const paths = { cert: join(dir, `${file}.pem`), key: join(dir, `${file}-key.pem`) };
      writeFileSync(paths.cert, c.cert);
      writeFileSync(paths.key, c.key, { mode: 0o600 });
      return paths;
    },
  };
}

/** A self-signed certificate and key that ended yesterday. */
export async function expiredCertificate(dir: string): Promise<{ cert: string; key: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const day = 86_400_000;
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      name: 'CN=localhost',
      keys,
      signingAlgorithm: alg,
      notBefore: new Date(Date.now() - 10 * day),
      notAfter: new Date(Date.now() - day),
      extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }])],
    },
    webcrypto as never,
  );
  const paths = { cert: join(dir, 'expired.pem'), key: join(dir, 'expired-key.pem') };
  writeFileSync(paths.cert, cert.toString('pem'));
  writeFileSync(
    paths.key,
    x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY'),
    { mode: 0o600 },
  );
  return paths;
}
