/**
 * The soak part's upstream: nginx on 127.0.0.1 serving a box catalog (`/soak/upstream.json`, a
 * "catalog" upstream as a box's metadata.json is) and its box files, to which a new version with a
 * new file is added whenever `addVersion()` is called, so that every scheduled run of the mirror
 * has something to copy. nginx serves fixed paths (measure.ts `startNginx`), so the paths of every
 * version the run may add are declared up front; each file is written before the catalog names it,
 * and the catalog is replaced whole (a rename), never read half-written.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startNginx, type Proc } from './measure';

export const UPSTREAM_BOX = 'soak/upstream';

export interface UpstreamVersion {
  version: string;
  sha256: string;
}

export class SoakUpstream {
  readonly versions: UpstreamVersion[] = [];
  private constructor(
    private readonly dir: string,
    private readonly origin: string,
    private readonly fileBytes: number,
    private readonly nginx: Proc,
  ) {}

  /** nginx on a free port with an empty catalog; room for `maxVersions` versions of `fileMiB` MiB each. */
  static async start(dir: string, maxVersions: number, fileMiB: number): Promise<SoakUpstream> {
    const files = join(dir, 'files');
    mkdirSync(files, { recursive: true });
    const port = await freePort();
    const catalog = join(files, 'upstream.json');
    writeCatalog(catalog, []);
    const paths: Record<string, string> = { [`/${UPSTREAM_BOX}.json`]: catalog };
    for (let n = 1; n <= maxVersions; n++) paths[`/soak/v${n}.box`] = join(files, `v${n}.box`);
    const nginx = await startNginx(dir, port, paths);
    return new SoakUpstream(files, `http://127.0.0.1:${port}`, fileMiB * 2 ** 20, nginx);
  }

  get catalogUrl(): string {
    return `${this.origin}/${UPSTREAM_BOX}.json`;
  }

  /** A new version with a file of new content: the file first, then the catalog listing it. */
  addVersion(): void {
    const n = this.versions.length + 1;
    const bytes = randomBytes(this.fileBytes);
    writeFileSync(join(this.dir, `v${n}.box`), bytes);
    this.versions.push({ version: `1.0.${n}`, sha256: createHash('sha256').update(bytes).digest('hex') });
    writeCatalog(
      join(this.dir, 'upstream.json'),
      this.versions.map((v, i) => ({
        version: v.version,
        status: 'active',
        providers: [
          {
            name: 'virtualbox',
            architecture: 'amd64',
            url: `${this.origin}/soak/v${i + 1}.box`,
            checksum: v.sha256,
            checksum_type: 'sha256',
          },
        ],
      })),
    );
  }

  stop(): Promise<void> {
    return this.nginx.stop();
  }
}

function writeCatalog(file: string, versions: unknown[]): void {
  writeFileSync(`${file}.new`, JSON.stringify({ name: UPSTREAM_BOX, versions }));
  renameSync(`${file}.new`, file);
}
