import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The web UI and the Electron shell share the daemon's contract (daemon/src/contract/) and nothing
// else of it: the renderer bundle stays free of the daemon's runtime code, and the contract stays
// pure so that both can bundle it. tsconfig.*.json keep each runtime's globals apart.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** Every relative or bare module a file imports or re-exports (type-only ones included). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [
    ...text.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g,
    ),
  ].map((m) => m[1] ?? m[2]);
}

/** A relative import as a path from the repository root. */
const target = (file: string, spec: string) => relative(ROOT, resolve(ROOT, dirname(file), spec));

describe('runtime boundaries', () => {
  for (const dir of ['renderer/src', 'main/src']) {
    it(`${dir} imports nothing of the daemon but its contract`, () => {
      const files = sources(dir);
      expect(files.length).toBeGreaterThan(3);
      const crossing = files
        .flatMap((f) =>
          importsOf(f)
            .filter((s) => s.startsWith('.'))
            .map((s) => ({ f, to: target(f, s) })),
        )
        .filter(({ to }) => to.startsWith('daemon/') && !to.startsWith('daemon/src/contract/'));
      expect(crossing).toEqual([]);
    });
  }

  it('the contract is pure: zod and its own files only', () => {
    const files = sources('daemon/src/contract');
    expect(files.length).toBeGreaterThan(3);
    const outside = files
      .flatMap((f) => importsOf(f).map((s) => ({ f, s })))
      .filter(({ f, s }) => s !== 'zod' && !(s.startsWith('.') && target(f, s).startsWith('daemon/src/contract/')));
    expect(outside).toEqual([]);
  });

  it('the import scan sees imports at all (the renderer reads the contract)', () => {
    const all = sources('renderer/src').flatMap((f) =>
      importsOf(f)
        .filter((s) => s.startsWith('.'))
        .map((s) => target(f, s)),
    );
    expect(all.some((t) => t.startsWith('daemon/src/contract/'))).toBe(true);
    expect(all).toContain('renderer/src/api/load');
  });
});
