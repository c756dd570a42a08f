import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { DEFAULT_DESKTOP_SETTINGS, DesktopSettings } from '../../daemon/src/contract/ipc';

/** The desktop settings file (JSON in Electron's userData); a broken file falls back to the defaults. */
export class SettingsStore {
  constructor(private readonly file: string) {}

  load(): DesktopSettings {
    if (!existsSync(this.file)) return DEFAULT_DESKTOP_SETTINGS;
    try {
      return DesktopSettings.parse(JSON.parse(readFileSync(this.file, 'utf8')));
    } catch {
      return DEFAULT_DESKTOP_SETTINGS;
    }
  }

  /**
   * Writes through a temporary file, fsynced and renamed (write-file-atomic, as the daemon's
   * lib/private-files.ts, which the shell may not import), so a crash never leaves half a settings file.
   */
  save(settings: DesktopSettings): DesktopSettings {
    const valid = DesktopSettings.parse(settings);
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileAtomic.sync(this.file, `${JSON.stringify(valid, null, 2)}\n`);
    return valid;
  }
}
