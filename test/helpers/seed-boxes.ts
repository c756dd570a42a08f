import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../daemon/src/store/db';

/**
 * A data folder holding `n` public boxes of the organization `many`, each with one released
 * version and a virtualbox/amd64 (even boxes) or libvirt/arm64 (odd) provider: rows written straight
 * into SQLite in one transaction after the daemon's own migrations, as bench/seed.ts does, because
 * 10,000 boxes through the API would take minutes. Downloads and update times are spread, not in
 * the order of the names, so that each sort really sorts. Start a daemon on the folder afterwards.
 */
export async function seedBoxes(n: number): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'boxyard-many-'));
  const store = openStore(join(dataDir, 'boxyard.db'));
  const db = store.raw;
  const at = (ms: number) => new Date(Date.parse('2025-01-01T00:00:00Z') + ms).toISOString();
  const insBox =
    db.prepare(`INSERT INTO boxes (id, organization_id, name, name_key, short_description, description, private, downloads, created_at, updated_at)
    VALUES (?, 'org-many', ?, ?, ?, '', 0, ?, ?, ?)`);
  const insVersion = db.prepare(
    "INSERT INTO box_versions (id, box_id, version, description, status, created_at, updated_at) VALUES (?, ?, '1.0.0', '', 'active', ?, ?)",
  );
  const insProvider =
    db.prepare(`INSERT INTO box_providers (id, version_id, name, architecture, default_architecture, url, created_at, updated_at)
    VALUES (?, ?, ?, ?, 1, ?, ?, ?)`);
  db.transaction(() => {
    db.prepare(
      "INSERT INTO organizations (id, name, name_key, created_at, updated_at) VALUES ('org-many', 'many', 'many', ?, ?)",
    ).run(at(0), at(0));
    for (let i = 0; i < n; i++) {
      const name = `box-${String(i).padStart(5, '0')}`;
      const created = at(i * 60_000);
      const updated = at(((i * 104_729) % 1_000_000) * 60_000);
      insBox.run(`box-${i}`, name, name, `Seeded box ${i}`, (i * 7919) % 100_003, created, updated);
      insVersion.run(`ver-${i}`, `box-${i}`, created, created);
      const [provider, arch] = i % 2 === 0 ? ['virtualbox', 'amd64'] : ['libvirt', 'arm64'];
      insProvider.run(
        `prov-${i}`,
        `ver-${i}`,
        provider,
        arch,
        `https://boxes.example.invalid/${name}.box`,
        created,
        created,
      );
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  await store.close();
  return dataDir;
}
