type Undici = typeof import('undici');

/**
 * undici (fetch with an Agent of its own: a DNS lookup that checks addresses, a CA to trust),
 * loaded when first needed: most daemons never do. The bundle (esbuild) hands a CommonJS module's
 * exports to `import()` as its default.
 */
export async function loadUndici(): Promise<Undici> {
  const mod = (await import('undici')) as Undici & { default?: Undici };
  return typeof mod.Agent === 'function' ? mod : mod.default!;
}
