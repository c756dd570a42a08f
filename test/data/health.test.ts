import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, renameSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../daemon/src/lib/clock';
import { sqliteOf, startTestDaemon, type TestDaemon } from '../helpers/daemon';
import { publishHosted } from '../helpers/mirror';
import { spawnDaemon } from '../helpers/spawn-daemon';

const BIN = fileURLToPath(new URL('../../bin/boxyard.mjs', import.meta.url));
const HINT =
  /Stop the daemon, keep a copy of the data folder as it is, run `boxyard check --data DIR` to see what is affected, and restore the last backup into a new folder \(`boxyard restore --data NEWDIR BACKUP`\)\./;

/** The start's integrity check of the SQLite file (a daemon on PostgreSQL has none). */
function integrityOf(d: TestDaemon) {
  const check = d.deps.integrity;
  assert(check, 'the daemon runs no integrity check: is it on PostgreSQL?');
  return check;
}

describe('/healthz', () => {
  const clock = new ManualClock(new Date());
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon({ clock });
    await integrityOf(d).done;
  });
  afterAll(() => d?.stop());

  /**
   * The next answer is measured afresh: the last one is reused for a second of the daemon's clock. An administrator
   * sees each check's detail.
   */
  const fresh = () => {
    clock.advance(1000);
    return d.http.withToken(d.adminToken).get('/healthz');
  };

  it('answers 200 with what it checked', async () => {
    const r = await fresh();
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      status: 'ok',
      name: 'boxyard',
      version: expect.any(String),
      checks: { database: { status: 'ok' }, blobs: { status: 'ok' }, disk: { status: 'ok' } },
    });
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect((await d.http.head('/healthz')).status).toBe(200);
  });

  it('answers 503 while the blob folder is gone, reusing a report within the second, and 200 once it is back', async () => {
    expect((await fresh()).status).toBe(200);
    renameSync(join(d.dataDir, 'blobs'), join(d.dataDir, 'blobs.away'));
    try {
      // Within the same second of the daemon's clock: the last report, the disk not touched.
      expect((await d.http.get('/healthz')).status).toBe(200);
      const r = await fresh();
      expect(r.status).toBe(503);
      expect(r.json.status).toBe('failing');
      expect(r.json.checks.database).toEqual({ status: 'ok' });
      expect(r.json.checks.blobs).toEqual({
        status: 'failing',
        detail: expect.stringMatching(
          /^The folder blobs\/sha256 is missing from the data folder .*restore the data folder from a backup\.$/,
        ),
      });
      // Anyone else (a load balancer, a monitor): the statuses, and where the details are.
      const anyone = await d.http.get('/healthz');
      expect(anyone.status).toBe(503);
      expect(anyone.json).toMatchObject({
        status: 'failing',
        checks: { database: { status: 'ok' }, blobs: { status: 'failing' } },
        details: expect.stringContaining('administrator'),
      });
      expect(anyone.json.checks.blobs.detail).toBeUndefined();
      expect(anyone.text).not.toContain(d.dataDir);
      // The rest of the daemon keeps answering.
      expect((await d.http.get('/api/v1/search')).status).toBe(200);
    } finally {
      renameSync(join(d.dataDir, 'blobs.away'), join(d.dataDir, 'blobs'));
    }
    expect((await fresh()).status).toBe(200);
  });

  it('answers 503 when the blob folder cannot be written', async () => {
    // The probe's name taken by a folder: writing it fails as on a read-only disk (root ignores modes).
    const probe = join(d.dataDir, 'uploads', '.healthz-probe');
    mkdirSync(probe);
    try {
      const r = await fresh();
      expect(r.status).toBe(503);
      expect(r.json.checks.blobs).toEqual({
        status: 'failing',
        detail: expect.stringMatching(
          /^The blob folder cannot be written \(EISDIR\): uploads and mirrors fail\. Check the data folder's disk/,
        ),
      });
    } finally {
      rmdirSync(probe);
    }
    expect((await fresh()).status).toBe(200);
  });

  it('answers 503 when the database file is gone from the data folder', async () => {
    const db = join(d.dataDir, 'boxyard.db');
    renameSync(db, `${db}.away`);
    try {
      const r = await fresh();
      expect(r.status).toBe(503);
      expect(r.json.checks.database).toEqual({
        status: 'failing',
        detail: expect.stringMatching(/^The database file boxyard\.db is gone from the data folder/),
      });
      expect(r.json.checks.blobs).toEqual({ status: 'ok' });
    } finally {
      renameSync(`${db}.away`, db);
    }
    expect((await fresh()).status).toBe(200);
  });
});

/** A data folder whose database has one table's root page overwritten. */
async function damagedFolder(table = 'boxes'): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-damaged-'));
  const d = await startTestDaemon({ dataDir });
  const http = d.http.withToken(d.adminToken);
  await http.post('/api/boxyard/organizations', { organization: { name: 'acme' } });
  await publishHosted(http, 'acme', 'one', '1.0.0', randomBytes(1000));
  const raw = sqliteOf(d);
  const page = raw
    .prepare("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?")
    .pluck()
    .get(table) as number;
  const size = raw.pragma('page_size', { simple: true }) as number;
  await d.stop();
  const fd = openSync(join(dataDir, 'boxyard.db'), 'r+');
  try {
    writeSync(fd, randomBytes(size), 0, size, (page - 1) * size);
  } finally {
    closeSync(fd);
  }
  return dataDir;
}

describe('a damaged database', () => {
  const folders: string[] = [];
  afterAll(() => {
    for (const f of folders) rmSync(f, { recursive: true, force: true });
  });
  const folder = async (table?: string) => {
    const f = await damagedFolder(table);
    folders.push(f);
    return f;
  };

  it('stops the start, saying what SQLite found and what to do', async () => {
    const dataDir = await folder();
    // Waited for as long as it takes (a busy machine is slower than the default 500 ms).
    const err = await startTestDaemon({ dataDir, config: { startCheckWaitMs: 60_000 } }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(
      new RegExp(
        `^The database ${join(dataDir, 'boxyard.db').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged \\((database disk image is malformed|.*page.*)\\)\\. `,
      ),
    );
    expect(err?.message).toMatch(HINT);
  });

  it('stops `boxyard serve` with exit code 1 and the same words', async () => {
    const dataDir = await folder();
    const err = await spawnDaemon({ dataDir, env: { BOXYARD_START_CHECK_WAIT_MS: '60000' } }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/daemon exited with 1/);
    expect(err?.message).toMatch(/boxyard: The database .* is damaged \(/);
    expect(err?.message).toMatch(HINT);
  });

  it('fails a CLI command that meets it with the same advice', async () => {
    const dataDir = await folder('users');
    const r = spawnSync(process.execPath, [BIN, 'user', 'list', '--data', dataDir], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^boxyard: Boxyard's database is damaged \(SQLITE_CORRUPT\w*: .+\), so this could not be done\. /,
    );
    expect(r.stderr).toMatch(HINT);
  });

  it('stops the start when the file is not a database at all', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-notadb-'));
    folders.push(dataDir);
    const fd = openSync(join(dataDir, 'boxyard.db'), 'w');
    try {
      writeSync(fd, randomBytes(8192));
    } finally {
      closeSync(fd);
    }
    const err = await startTestDaemon({ dataDir }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/^The database .* is damaged \(file is not a database\)\. /);
    expect(err?.message).toMatch(HINT);
  });

  it('found after the start wait (a large file) turns /healthz 503, and requests that meet it say so', async () => {
    const dataDir = await folder();
    const clock = new ManualClock(new Date());
    const d = await startTestDaemon({ dataDir, clock, config: { startCheckWaitMs: 0 } });
    try {
      expect(await integrityOf(d).done).toMatchObject({ state: 'damaged' });
      clock.advance(1000);
      const r = await d.http.withToken(d.adminToken).get('/healthz');
      expect(r.status).toBe(503);
      expect(r.json.checks.database.status).toBe('failing');
      expect(r.json.checks.database.detail).toMatch(
        /^The database is damaged: PRAGMA quick_check reports .+\. Stop the daemon/,
      );
      expect(r.json.checks.database.detail).toMatch(HINT);
      const search = await d.http.get('/api/v1/search?q=one');
      expect(search.status).toBe(500);
      expect(search.json).toEqual({
        errors: [
          expect.stringMatching(
            /^Boxyard's database is damaged \(SQLITE_CORRUPT\w*: .+\), so this could not be done\. Stop the daemon/,
          ),
        ],
        success: false,
        code: 'internal',
      });
    } finally {
      await d.stop();
    }
  });
});
