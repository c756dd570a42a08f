import type SqliteDatabase from 'better-sqlite3';
import { TableMarks } from './table-clock';
import { WriteGraph, splitTrigger, type SchemaFacts } from './write-graph';

/**
 * How stale what other connections (a CLI command on the same data folder) committed may be, at
 * most, and only while requests come faster than this: the first request after a quiet spell
 * always catches up. Once a millisecond cost the pool list 4% of its time under load (bench/);
 * once every 5 ms was a pragma per agent report (1,000 agents every 10 s), a tenth of what the
 * daemon spent on them. No other connection is the daemon's own: its writes are seen at once.
 */
export const CATCH_UP_MS = 50;

/** The schema as SQLite's catalog holds it. */
function sqliteFacts(raw: SqliteDatabase.Database): SchemaFacts {
  const objects = raw
    .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'view', 'trigger')")
    .all() as Array<{ type: string; name: string; tbl_name: string; sql: string | null }>;
  const fkParents = raw.prepare('SELECT "table" FROM pragma_foreign_key_list(?)').pluck();
  return {
    tables: objects.filter((o) => o.type !== 'trigger').map((o) => o.name),
    foreignKeys: objects
      .filter((o) => o.type === 'table')
      .flatMap((o) => (fkParents.all(o.name) as string[]).map((parent) => ({ child: o.name, parent }))),
    triggers: objects
      .filter((o) => o.type === 'trigger')
      .map((o) => ({ table: o.tbl_name, ...splitTrigger(o.sql ?? '') })),
  };
}

/**
 * The read caches' clock on SQLite (table-clock.ts), from this connection's own writes, each
 * reported before it runs (statement-cache.ts). Other connections (a CLI command importing into
 * the same data folder) are seen through `PRAGMA data_version`, which changes when another
 * connection commits: then everything moves on.
 */
export class TableVersions extends TableMarks {
  readonly keeps = true;
  private readonly dataVersion: SqliteDatabase.Statement;
  private readonly schemaVersion: SqliteDatabase.Statement;
  private seenData: unknown;
  private seenSchema: unknown;
  private caughtUpAt = -Infinity;

  constructor(private readonly raw: SqliteDatabase.Database) {
    super(new WriteGraph(sqliteFacts(raw)));
    this.dataVersion = raw.prepare('PRAGMA data_version').pluck();
    this.schemaVersion = raw.prepare('PRAGMA schema_version').pluck();
    this.seenData = this.dataVersion.get();
    this.seenSchema = this.schemaVersion.get();
  }

  /**
   * The time to stamp a read with, taken before it runs. Catches up with other connections at
   * most once per CATCH_UP_MS (the pragma, like any statement, opens a read transaction and cost a
   * tenth of a cached catalog request): another process's commit is seen within that.
   */
  override now(): number {
    const t = performance.now();
    if (t - this.caughtUpAt >= CATCH_UP_MS) {
      this.caughtUpAt = t;
      const data = this.dataVersion.get();
      if (data !== this.seenData) {
        this.seenData = data;
        this.forgetAll();
      }
    }
    return this.clock;
  }

  protected override forgetAll(): void {
    super.forgetAll();
    const schema = this.schemaVersion.get();
    if (schema !== this.seenSchema) {
      this.seenSchema = schema;
      this.graph = new WriteGraph(sqliteFacts(this.raw));
    }
  }
}
