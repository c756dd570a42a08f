import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { caBundle, systemCas } from './client-fetch';

describe("the system's CAs and one more", () => {
  const dir = mkdtempSync(join(tmpdir(), 'boxyard-cas-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const pem = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';

  it("takes the first of the system's bundle files that holds a certificate", () => {
    const empty = join(dir, 'empty.crt');
    const bundle = join(dir, 'ca-certificates.crt');
    writeFileSync(empty, 'nothing here\n');
    writeFileSync(bundle, pem);
    expect(systemCas([join(dir, 'missing.crt'), empty, bundle])).toEqual([pem]);
  });

  it("falls back to Node's own list where the system keeps no bundle file", () => {
    expect(systemCas([join(dir, 'missing.crt')])).toEqual([...rootCertificates]);
  });

  it('adds the one more after them, never instead of them', () => {
    expect(caBundle('EXTRA', [join(dir, 'missing.crt')])).toEqual([...rootCertificates, 'EXTRA']);
  });
});
