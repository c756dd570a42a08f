import { describe, expect, it } from 'vitest';
import { LETS_ENCRYPT, loadConfig, defaultDataDir } from './config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 4780,
      dataDir: defaultDataDir(),
      maintenance: false,
      uploadTtlHours: 6,
      adminUsername: 'admin',
    });
    expect(c.dataDir).toMatch(/boxyard/);
  });

  it('reads BOXYARD_* and lets flags win', () => {
    const c = loadConfig(
      {
        BOXYARD_PORT: '9000',
        BOXYARD_HOST: '0.0.0.0',
        BOXYARD_MAINTENANCE: 'true',
        BOXYARD_PUBLIC_URL: 'http://box.lan:9000/',
      },
      { port: '9001' },
    );
    expect(c).toMatchObject({ port: 9001, host: '0.0.0.0', maintenance: true, publicUrl: 'http://box.lan:9000' });
  });

  it('rejects nonsense with a message naming the setting', () => {
    expect(() => loadConfig({ BOXYARD_PORT: '70000' })).toThrow(/port/);
    expect(() => loadConfig({ BOXYARD_PUBLIC_URL: 'not a url' })).toThrow(/publicUrl/);
  });

  it("--tls acme: for an https public URL with a DNS name, port 80 for HTTP-01 unless told, Let's Encrypt unless told, never offline", () => {
    expect(
      loadConfig({
        BOXYARD_TLS: 'acme',
        BOXYARD_PUBLIC_URL: 'https://boxes.example.org',
        BOXYARD_ACME_EMAIL: 'ops@example.org',
      }),
    ).toMatchObject({ tls: 'acme', httpPort: 80, acmeDirectory: LETS_ENCRYPT, acmeEmail: 'ops@example.org' });
    expect(
      loadConfig(
        {},
        {
          tls: 'acme',
          publicUrl: 'https://boxes.example.org',
          httpPort: '8080',
          acmeDirectory: 'https://ca.lab:9000/acme/dir',
        },
      ),
    ).toMatchObject({ httpPort: 8080, acmeDirectory: 'https://ca.lab:9000/acme/dir' });
    expect(loadConfig({ BOXYARD_TLS: 'auto' }).httpPort).toBeUndefined();
    for (const publicUrl of [undefined, 'http://boxes.example.org', 'https://192.0.2.7', 'https://[2001:db8::1]']) {
      expect(() => loadConfig({}, { tls: 'acme', publicUrl })).toThrow(/--tls acme needs --public-url https:\/\/NAME/);
    }
    expect(() => loadConfig({}, { tls: 'acme', publicUrl: 'https://boxes.example.org', offline: true })).toThrow(
      /--offline forbids/,
    );
    expect(() => loadConfig({}, { tls: 'auto', acmeEmail: 'ops@example.org' })).toThrow(/go with --tls acme/);
    expect(() =>
      loadConfig({}, { tls: 'acme', publicUrl: 'https://boxes.example.org', acmeEmail: 'not an address' }),
    ).toThrow(/acmeEmail/);
  });
});
