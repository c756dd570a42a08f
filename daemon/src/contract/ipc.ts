import { z } from 'zod';

/**
 * The Electron preload bridge: channel names and the zod schemas of what crosses them. Main checks
 * every argument, the preload checks every result, so nothing untyped crosses the process boundary.
 */

/** Where the daemon listens unless told otherwise (daemon/src/config.ts), and the desktop app's first settings. */
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4780;
/** The `--host` that serves the LAN. */
export const LAN_HOST = '0.0.0.0';

export const DesktopSettings = z
  .object({
    /** Serve the LAN (`--host 0.0.0.0`) instead of this machine only. */
    lanAccess: z.boolean(),
    /**
     * With LAN access: HTTPS from Boxyard's own CA (`--tls auto`), on unless switched off (settings saved before it had
     * it).
     */
    lanHttps: z.boolean().default(true),
    /**
     * With LAN HTTPS: your own certificate chain and key (PEM files, `--tls-cert/--tls-key`) instead of Boxyard's CA;
     * both or neither.
     */
    tlsCert: z.string().trim().min(1).max(4096).optional(),
    tlsKey: z.string().trim().min(1).max(4096).optional(),
    /**
     * With LAN HTTPS: a certificate from Let's Encrypt (`--tls acme`) for this public URL
     * (`https://NAME`, a name that resolves to this machine, port 80 reachable), instead of Boxyard's CA.
     */
    acmeUrl: z
      .string()
      .trim()
      .regex(/^https:\/\/[a-z0-9.-]+\.[a-z]{2,}(:\d+)?\/?$/i, 'the public URL is https:// and a DNS name')
      .optional(),
    acmeEmail: z.email().optional(),
    port: z.number().int().min(1).max(65535),
  })
  .refine((s) => !s.tlsCert === !s.tlsKey, {
    message: 'your own certificate needs both its file and its key file',
    path: ['tlsKey'],
  })
  .refine((s) => !(s.acmeUrl && s.tlsCert), {
    message: "either your own certificate or one from Let's Encrypt, not both",
    path: ['acmeUrl'],
  });
export type DesktopSettings = z.infer<typeof DesktopSettings>;
export const DEFAULT_DESKTOP_SETTINGS: DesktopSettings = { lanAccess: false, lanHttps: true, port: DEFAULT_PORT };
/** Where these settings' certificate comes from: only the LAN is served over HTTPS. */
export function httpsMode(s: DesktopSettings): 'off' | 'auto' | 'files' | 'acme' {
  if (!s.lanAccess || !s.lanHttps) return 'off';
  if (s.acmeUrl) return 'acme';
  return s.tlsCert && s.tlsKey ? 'files' : 'auto';
}

export const DaemonState = z.enum(['starting', 'running', 'restarting', 'stopping', 'stopped', 'failed']);
export type DaemonState = z.infer<typeof DaemonState>;

export const DesktopInfo = z.object({
  version: z.string(),
  dataDir: z.string(),
  /** The daemon's URL as this machine reaches it, or null while it is not listening. */
  url: z.string().nullable(),
  state: DaemonState,
  /** The last error line of the daemon, when it failed or is restarting. */
  lastError: z.string().nullable(),
  settings: DesktopSettings,
  /** The URLs other machines reach the daemon at (one per network address); empty while LAN access is off. */
  lanUrls: z.array(z.string()),
  /** Over HTTPS: the SHA-256 fingerprint of Boxyard's CA, which colleagues check before they trust it; else null. */
  caFingerprint: z.string().nullable(),
});
export type DesktopInfo = z.infer<typeof DesktopInfo>;

/**
 * What the first run shows once: the administrator account the daemon created, with the password
 * it generated (kept only in the app's memory, and forgotten when the user dismisses it).
 */
export const Welcome = z.object({ username: z.string(), password: z.string() }).nullable();
export type Welcome = z.infer<typeof Welcome>;

export const IPC = {
  info: 'boxyard:info',
  saveSettings: 'boxyard:save-settings',
  openDataDir: 'boxyard:open-data-dir',
  welcome: 'boxyard:welcome',
  dismissWelcome: 'boxyard:dismiss-welcome',
} as const;

/** What the preload exposes as `window.boxyard` (only inside the desktop app). */
export interface DesktopBridge {
  info(): Promise<DesktopInfo>;
  /** Saves the settings and restarts the daemon with them; answers the new state. */
  saveSettings(settings: DesktopSettings): Promise<DesktopInfo>;
  openDataDir(): Promise<void>;
  /** The first run's administrator account, until dismissed; null after that (and on every later run). */
  welcome(): Promise<Welcome>;
  /** Forgets the first run's password: the welcome screen does not come back. */
  dismissWelcome(): Promise<void>;
}
