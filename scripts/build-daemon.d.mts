/** Bundles the daemon into dist/daemon/cli.mjs (see build-daemon.mjs). */
export function buildDaemon(): Promise<void>;
