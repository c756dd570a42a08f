import { execFile } from 'node:child_process';

/** The daemon's run-time switches the tray shows (`boxyard settings`, daemon/src/cli.ts). */
export interface RuntimeSwitches {
  offline: boolean;
  offline_forced: boolean;
}

/**
 * Reads and changes the daemon's run-time settings through `boxyard settings` on its data folder:
 * the running daemon answers with them at once, and the desktop app needs no administrator token.
 */
export class DaemonSettingsCli {
  constructor(
    private readonly opts: {
      command: string;
      script: string;
      dataDir: string;
      env: Record<string, string | undefined>;
    },
  ) {}

  read(): Promise<RuntimeSwitches> {
    return this.run([]);
  }

  setOffline(offline: boolean): Promise<RuntimeSwitches> {
    return this.run(['--offline', offline ? 'on' : 'off']);
  }

  private run(args: string[]): Promise<RuntimeSwitches> {
    const argv = [this.opts.script, 'settings', '--data', this.opts.dataDir, ...args];
    return new Promise((resolve, reject) => {
      execFile(
        this.opts.command,
        argv,
        { env: { ...this.opts.env, BOXYARD_LOG_LEVEL: 'silent' }, timeout: 30_000 },
        (err, stdout, stderr) => {
          if (err) return reject(new Error(stderr.trim().replace(/^boxyard: /, '') || err.message));
          const s = JSON.parse(stdout) as RuntimeSwitches;
          resolve({ offline: s.offline, offline_forced: s.offline_forced });
        },
      );
    });
  }
}
