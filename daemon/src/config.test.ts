import { describe, expect, it } from 'vitest';
import { loadConfig, defaultDataDir } from './config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ host: '127.0.0.1', port: 4780, dataDir: defaultDataDir(), maintenance: false, uploadTtlHours: 6, adminUsername: 'admin' });
    expect(c.dataDir).toMatch(/boxyard/);
  });

  it('reads BOXYARD_* and lets flags win', () => {
    const c = loadConfig({ BOXYARD_PORT: '9000', BOXYARD_HOST: '0.0.0.0', BOXYARD_MAINTENANCE: 'true', BOXYARD_PUBLIC_URL: 'http://box.lan:9000/' }, { port: '9001' });
    expect(c).toMatchObject({ port: 9001, host: '0.0.0.0', maintenance: true, publicUrl: 'http://box.lan:9000' });
  });

  it('rejects nonsense with a message naming the setting', () => {
    expect(() => loadConfig({ BOXYARD_PORT: '70000' })).toThrow(/port/);
    expect(() => loadConfig({ BOXYARD_PUBLIC_URL: 'not a url' })).toThrow(/publicUrl/);
  });
});
