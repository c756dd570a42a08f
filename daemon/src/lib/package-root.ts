import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of Boxyard's package.json, found by walking up from this module: the same answer
 * from the TypeScript sources (daemon/src/lib/) and from the bundle (dist/daemon/cli.mjs), so
 * files shipped beside the code (migrations, the built UI) are found either way.
 */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'boxyard')
      return dir;
    if (dirname(dir) === dir) throw new Error(`Boxyard's package.json was not found above ${from}`);
  }
}
