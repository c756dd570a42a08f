import { present } from './invariant';

type Undici = typeof import('undici');
type Acme = typeof import('acme-client');

/**
 * A CommonJS dependency loaded when first needed (most daemons never need it): the bundle
 * (esbuild) hands its exports to `import()` as the default, Node and vitest as named exports too.
 */
function exportsOf<T extends object>(mod: object, probe: keyof T): T {
  const m = mod as T & { default?: T };
  if (typeof m[probe] === 'function') return m;
  return present(m.default, `the module exports ${String(probe)}, by name or as its default's`);
}

/** undici: fetch with an Agent of its own (a DNS lookup that checks addresses, a CA to trust). */
export async function loadUndici(): Promise<Undici> {
  return exportsOf<Undici>(await import('undici'), 'Agent');
}

/** acme-client (tls/acme.ts), with axios and node-forge behind it: only for `--tls acme`. */
export async function loadAcmeClient(): Promise<Acme> {
  return exportsOf<Acme>(await import('acme-client'), 'Client');
}

/** koffi (lib/malloc-tuning.ts): a native library, loaded only by `serve` on Linux. */
export async function loadKoffi(): Promise<typeof import('koffi')> {
  return exportsOf<typeof import('koffi')>(await import('koffi'), 'load');
}
