import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { runCli } from '../helpers/cli';

// `boxyard settings` (the desktop tray's offline switch, and scripts): it writes the data folder,
// and a daemon serving that folder answers with the new settings at once, without a restart.
let d: TestDaemon;
beforeAll(async () => {
  d = await startTestDaemon();
});
afterAll(async () => {
  await d.stop();
});

const cli = (...args: string[]) =>
  runCli(['settings', ...args], { BOXYARD_DATA: d.dataDir, BOXYARD_LOG_LEVEL: 'silent' });
const served = async () =>
  (await d.http.withToken(d.adminToken).get('/api/boxyard/settings')).json as Record<string, unknown>;

describe('boxyard settings', () => {
  it('prints the settings as JSON', async () => {
    const r = await cli();
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      maintenance: false,
      offline: false,
      offline_forced: false,
      pull_through_upstream_id: null,
      cache_max_age_minutes: 30,
      mirror_allowed_hosts: [],
    });
  });

  it('switches offline on and off, and the running daemon answers with it', async () => {
    const on = await cli('--offline', 'on');
    expect(on.code).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ offline: true, maintenance: false });
    expect(await served()).toMatchObject({ settings: { offline: true } });
    const off = await cli('--offline', 'off');
    expect(JSON.parse(off.stdout)).toMatchObject({ offline: false });
    expect(await served()).toMatchObject({ settings: { offline: false } });
  });

  it('refuses a value other than on or off and changes nothing', async () => {
    const r = await cli('--offline', 'yes', '--maintenance', 'on');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('expected on or off, not "yes"');
    expect(await served()).toMatchObject({ settings: { offline: false, maintenance: false } });
  });
});
