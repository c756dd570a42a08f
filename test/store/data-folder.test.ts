import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { publishHosted, sha256 } from '../helpers/mirror';

const mode = (path: string) => statSync(path).mode & 0o777;

/** Every file and folder below `dir` (itself included) with its mode, as `path: 0NNN`. */
function modes(dir: string, root = dir): Record<string, string> {
  const out: Record<string, string> = { [relative(root, dir) || '.']: mode(dir).toString(8) };
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, modes(path, root));
    else out[relative(root, path)] = mode(path).toString(8);
  }
  return out;
}

/** Loosens everything below `dir` as an older version (umask 022) left it. */
function loosen(dir: string): void {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) loosen(path);
    else chmodSync(path, 0o644);
  }
}

const expectPrivate = (dir: string) => {
  const all = modes(dir);
  expect(Object.keys(all).length).toBeGreaterThan(8);
  for (const [path, m] of Object.entries(all)) {
    const isDir = statSync(join(dir, path)).isDirectory();
    expect(`${path}: ${m}`).toBe(`${path}: ${isDir ? '700' : '600'}`);
  }
};

describe('the data folder', () => {
  const roots: string[] = [];
  let umask: number;
  let d: TestDaemon | undefined;
  beforeEach(() => {
    // The most permissive umask there is: modes must come from the daemon, not from it.
    umask = process.umask(0);
  });
  afterEach(async () => {
    await d?.stop();
    d = undefined;
    process.umask(umask);
  });
  afterAll(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  const newFolder = () => {
    const root = mkdtempSync(join(tmpdir(), 'boxyard-modes-'));
    roots.push(root);
    // Not mkdtemp's own folder (already 0700): one the daemon creates.
    return join(root, 'data');
  };

  it('is created 0700 with the database, its -wal and -shm, and the blobs 0600, whatever the umask', async () => {
    const dataDir = newFolder();
    d = await startTestDaemon({ dataDir });
    const http = d.http.withToken(d.adminToken);
    await http.post('/api/boxyard/organizations', { organization: { name: 'acme' } });
    const file = randomBytes(100_000);
    await publishHosted(http, 'acme', 'private', '1.0.0', file);
    const sum = sha256(file);
    expect(existsSync(join(dataDir, 'boxyard.db-wal'))).toBe(true);
    expect(existsSync(join(dataDir, 'boxyard.db-shm'))).toBe(true);
    expect(mode(join(dataDir, 'blobs', 'sha256', sum.slice(0, 2), sum))).toBe(0o600);
    expectPrivate(dataDir);
  });

  it('is tightened at start when an older version left it readable, blobs included', async () => {
    const dataDir = newFolder();
    const first = await startTestDaemon({ dataDir });
    const http = first.http.withToken(first.adminToken);
    await http.post('/api/boxyard/organizations', { organization: { name: 'acme' } });
    const file = randomBytes(50_000);
    await publishHosted(http, 'acme', 'old', '1.0.0', file);
    await first.stop();
    loosen(dataDir);
    const sum = sha256(file);
    expect(mode(join(dataDir, 'blobs', 'sha256', sum.slice(0, 2), sum))).toBe(0o644);
    expect(mode(join(dataDir, 'boxyard.db'))).toBe(0o644);

    d = await startTestDaemon({ dataDir });
    expectPrivate(dataDir);
    // And it still serves what it holds.
    expect((await d.http.get('/acme/old')).json.versions[0].providers[0].checksum).toBe(sum);
  });
});
