import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
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

  /** Writes through a temporary file, so a crash never leaves half a settings file. */
  save(settings: DesktopSettings): DesktopSettings {
    const valid = DesktopSettings.parse(settings);
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.tmp`, `${JSON.stringify(valid, null, 2)}\n`);
    renameSync(`${this.file}.tmp`, this.file);
    return valid;
  }
}
