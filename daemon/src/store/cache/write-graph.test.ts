import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type SqliteStore } from '../db';
import { WriteGraph, splitTrigger } from './write-graph';

describe("WriteGraph from a schema's facts", () => {
  const graph = new WriteGraph({
    tables: ['parent', 'child', 'grandchild', 'counts', 'log', 'search'],
    foreignKeys: [
      { child: 'child', parent: 'parent' },
      { child: 'grandchild', parent: 'child' },
    ],
    triggers: [
      // SQLite's form: the body is the text between BEGIN and END.
      {
        table: 'child',
        ...splitTrigger(
          'CREATE TRIGGER child_counts AFTER UPDATE OF status ON child BEGIN UPDATE counts SET n = n + 1; END',
        ),
      },
      // PostgreSQL's: several events in the head, the function's body apart.
      {
        table: 'parent',
        head: 'CREATE TRIGGER p AFTER INSERT OR UPDATE OF name OR DELETE ON public.parent FOR EACH ROW EXECUTE FUNCTION f()',
        body: 'BEGIN INSERT OR REPLACE INTO search VALUES (NEW.id); RETURN NULL; END',
      },
      {
        table: 'log',
        head: 'some head this cannot read',
        body: 'insert into counts (id) values (1) on conflict (id) do update set n = 1',
      },
    ],
  });

  it('follows foreign keys on delete, transitively, not on insert or update', () => {
    expect(graph.affectedBy('parent', ['delete']).sort()).toEqual(['child', 'grandchild', 'parent', 'search']);
    expect(graph.affectedBy('child', ['insert'])).toEqual(['child']);
  });

  it('follows a trigger only for the columns its UPDATE OF names', () => {
    expect(graph.affectedBy('child', ['update'], ['status']).sort()).toEqual(['child', 'counts']);
    expect(graph.affectedBy('child', ['update'], ['name'])).toEqual(['child']);
    expect(graph.affectedBy('child', ['update']).sort()).toEqual(['child', 'counts']);
    expect(graph.affectedBy('parent', ['update'], ['other'])).toEqual(['parent']);
    expect(graph.affectedBy('parent', ['insert']).sort()).toEqual(['parent', 'search']);
  });

  it('counts a trigger whose head it cannot read for every kind of write', () => {
    expect(graph.affectedBy('log', ['delete']).sort()).toEqual(['counts', 'log']);
  });

  it('refuses names that are no table', () => {
    expect(() => graph.checkTables(['parent', 'nope'])).toThrow(/nope/);
    expect(graph.has('PARENT')).toBe(true);
  });
});

describe('WriteGraph of the migrated SQLite schema', () => {
  let dir: string;
  let store: SqliteStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'boxyard-write-graph-'));
    store = openStore(join(dir, 'db.sqlite'));
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows cascades on delete and triggers, not cascades on update', () => {
    expect(store.versions.affectedBy('boxes', 'delete')).toEqual(
      expect.arrayContaining(['boxes', 'box_versions', 'box_providers', 'box_search']),
    );
    expect(store.versions.affectedBy('boxes', 'update')).not.toContain('box_versions');
    expect(store.versions.affectedBy('boxes', 'update')).toContain('box_search');
    expect(store.versions.affectedBy('settings', 'update')).toEqual(['settings']);
    // Triggers UPDATE OF some columns: a download count or an agent's ping changes no index or count.
    expect(store.versions.affectedBy('boxes', 'update', ['downloads'])).toEqual(['boxes']);
    expect(store.versions.affectedBy('agents', 'update', ['last_ping_at', 'ip_address'])).toEqual(['agents']);
    expect(store.versions.affectedBy('agents', 'update', ['status', 'last_ping_at'])).toContain('agent_pools');
  });
});
