import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SettingsStore } from '../../main/src/settings-store';
import { DEFAULT_DESKTOP_SETTINGS } from '../../daemon/src/contract/ipc';

describe('the desktop settings file', () => {
  it('saves whole, replaces the old file and leaves no temporary file beside it', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'boxyard-settings-')), 'userData');
    const file = join(dir, 'settings.json');
    const store = new SettingsStore(file);
    expect(store.load()).toEqual(DEFAULT_DESKTOP_SETTINGS);
    store.save({ ...DEFAULT_DESKTOP_SETTINGS, port: 8080 });
    store.save({ ...DEFAULT_DESKTOP_SETTINGS, lanAccess: true, port: 8081 });
    expect(readdirSync(dir)).toEqual(['settings.json']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      ...DEFAULT_DESKTOP_SETTINGS,
      lanAccess: true,
      port: 8081,
    });
    expect(new SettingsStore(file).load()).toMatchObject({ lanAccess: true, port: 8081 });
  });

  it('a broken file reads as the defaults', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'boxyard-settings-')), 'settings.json');
    writeFileSync(file, '{"port": ');
    expect(new SettingsStore(file).load()).toEqual(DEFAULT_DESKTOP_SETTINGS);
  });
});
