import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import {
  DEFAULT_HOST,
  LAN_HOST,
  httpsMode,
  type DaemonState,
  type DesktopSettings,
} from '../../daemon/src/contract/ipc';

export interface SupervisorStatus {
  state: DaemonState;
  url: string | null;
  lastError: string | null;
}

export interface SupervisorOptions {
  /** The Node executable: Electron itself with ELECTRON_RUN_AS_NODE=1 in the app, plain node in tests. */
  command: string;
  /** bin/boxyard.mjs */
  script: string;
  dataDir: string;
  env: Record<string, string | undefined>;
  onChange?(status: SupervisorStatus): void;
  /** The daemon's first start prints the administrator's generated password once. */
  onAdminPassword?(message: string): void;
  restartDelayMs?: number;
  /** This many crashes within a minute and the supervisor gives up (state `failed`). */
  maxCrashesPerMinute?: number;
}

const LISTENING = /^Boxyard listening on (\S+)/;
const ADMIN_CREATED = /^Created administrator /;

/** The daemon's HTTPS arguments: httpsMode says `files` only with both paths set, and `acme` only with a URL. */
function tlsArgs(s: DesktopSettings): string[] {
  const mode = httpsMode(s);
  if (mode === 'auto') return ['--tls', 'auto'];
  if (mode === 'files' && s.tlsCert && s.tlsKey) return ['--tls-cert', s.tlsCert, '--tls-key', s.tlsKey];
  if (mode === 'acme' && s.acmeUrl)
    return ['--tls', 'acme', '--public-url', s.acmeUrl, ...(s.acmeEmail ? ['--acme-email', s.acmeEmail] : [])];
  return [];
}

/**
 * Runs `boxyard serve` as a child process: waits for its "listening" line, restarts it on a crash, stops it on request.
 */
export class DaemonSupervisor {
  private child: ChildProcess | null = null;
  private settings: DesktopSettings | null = null;
  private status: SupervisorStatus = { state: 'stopped', url: null, lastError: null };
  private crashes: number[] = [];
  private restartTimer: NodeJS.Timeout | null = null;
  private waiters: Array<{ resolve(url: string): void; reject(e: Error): void }> = [];

  constructor(private readonly opts: SupervisorOptions) {}

  current(): SupervisorStatus {
    return { ...this.status };
  }

  /** The running daemon's process id (for logs and tests). */
  pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts (or restarts with new settings) and resolves with the URL once the daemon listens. */
  async start(settings: DesktopSettings): Promise<string> {
    await this.stop();
    this.settings = settings;
    this.crashes = [];
    const listening = this.nextListening();
    this.spawnChild('starting');
    return listening;
  }

  async stop(): Promise<void> {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) {
      this.setStatus({ state: 'stopping', url: null });
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      // The daemon closes its database on SIGTERM; a hung one is killed after 5 s.
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    this.setStatus({ state: 'stopped', url: null });
  }

  private nextListening(): Promise<string> {
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private settle(result: { url: string } | { error: Error }): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) 'url' in result ? w.resolve(result.url) : w.reject(result.error);
  }

  private setStatus(patch: Partial<SupervisorStatus>): void {
    this.status = { ...this.status, ...patch };
    this.opts.onChange?.(this.current());
  }

  /**
   * The daemon's arguments for these settings: LAN access is `--host 0.0.0.0`, over HTTPS unless
   * switched off: with your own certificate files, or one from Let's Encrypt for the public URL
   * given (HTTP-01 on port 80), else Boxyard's CA (`--tls auto`).
   */
  args(s: DesktopSettings): string[] {
    return [
      this.opts.script,
      'serve',
      '--data',
      this.opts.dataDir,
      '--host',
      s.lanAccess ? LAN_HOST : DEFAULT_HOST,
      '--port',
      String(s.port),
      ...tlsArgs(s),
    ];
  }

  private spawnChild(state: DaemonState): void {
    if (!this.settings) return;
    this.setStatus({ state, url: null });
    // bin/boxyard.mjs is the daemon itself: this is the process to watch and stop.
    const child = spawn(this.opts.command, this.args(this.settings), {
      env: this.opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.watchOutput(child);
    child.once('error', (e) => this.setStatus({ lastError: e.message }));
    child.once('exit', (code, signal) => {
      if (this.child === child) this.crashed(code, signal);
    });
  }

  private watchOutput(child: ChildProcessByStdio<null, Readable, Readable>): void {
    let adminLines: string[] | null = null;
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (adminLines) {
        this.opts.onAdminPassword?.([...adminLines, line].join('\n'));
        adminLines = null;
      } else if (ADMIN_CREATED.test(line)) adminLines = [line];
      const m = LISTENING.exec(line);
      // A daemon being stopped or replaced is not the one running (its first-run password still counts).
      if (m && this.child === child) {
        this.setStatus({ state: 'running', url: m[1], lastError: null });
        this.settle({ url: m[1] });
      }
    });
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (line.trim()) this.setStatus({ lastError: line.trim() });
    });
  }

  private crashed(code: number | null, signal: NodeJS.Signals | null): void {
    this.child = null;
    const now = Date.now();
    this.crashes = [...this.crashes.filter((t) => now - t < 60_000), now];
    const why = this.status.lastError ?? `exited with ${signal ?? `code ${code}`}`;
    if (this.crashes.length >= (this.opts.maxCrashesPerMinute ?? 5)) {
      this.setStatus({ state: 'failed', url: null, lastError: why });
      this.settle({ error: new Error(`The Boxyard daemon keeps stopping: ${why}`) });
      return;
    }
    this.setStatus({ state: 'restarting', url: null, lastError: why });
    this.restartTimer = setTimeout(() => this.spawnChild('restarting'), this.opts.restartDelayMs ?? 1_000);
  }
}
