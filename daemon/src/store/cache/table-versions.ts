import type SqliteDatabase from 'better-sqlite3';
import type { TableClock } from './table-clock';

type Kind = 'insert' | 'update' | 'delete';

/** The table a write names first: `insert [or …] into`, `replace into`, `update [or …]`, `delete from`. */
const WRITE = /\b(insert(?:\s+or\s+(\w+))?\s+into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+"?(\w+)"?/i;

function kindsOf(m: RegExpExecArray, sql: string): Kind[] {
  const verb = m[1].toLowerCase();
  if (verb.startsWith('delete')) return ['delete'];
  if (verb.startsWith('update')) return ['update'];
  const kinds: Kind[] = ['insert'];
  // REPLACE deletes the row it replaces (cascading); an upsert may update instead.
  if (verb.startsWith('replace') || m[2]?.toLowerCase() === 'replace') kinds.push('delete');
  if (/\bon\s+conflict\b[\s\S]*\bdo\s+update\b/i.test(sql)) kinds.push('update');
  return kinds;
}

/**
 * The columns an UPDATE sets, when they can be told for sure (Kysely's `set "a" = ?, "b" = ?`);
 * undefined (any column) when a value holds a subquery or the statement another shape.
 */
function columnsSet(sql: string): string[] | undefined {
  const m = /^\s*update\s+(?:or\s+\w+\s+)?"?\w+"?\s+set\s+([\s\S]*?)(?:\s+(?:where|returning|from)\s[\s\S]*)?$/i.exec(sql);
  if (!m || m[1].includes('(')) return undefined;
  return [...m[1].matchAll(/"?(\w+)"?\s*=/g)].map((c) => c[1].toLowerCase());
}

/** What a write statement changes directly: its table, how, and for an UPDATE which columns if known; undefined for anything else (DDL). */
export function writeOf(sql: string): { table: string; kinds: Kind[]; columns?: string[] } | undefined {
  const m = WRITE.exec(sql);
  if (!m) return undefined;
  const kinds = kindsOf(m, sql);
  const columns = kinds.length === 1 && kinds[0] === 'update' ? columnsSet(sql) : undefined;
  return { table: m[3].toLowerCase(), kinds, ...(columns ? { columns } : {}) };
}

interface TriggerWrite { table: string; kind: Kind }
/** A trigger: what it writes, and for `UPDATE OF a, b` the columns whose update fires it. */
interface Trigger { of?: string[]; writes: TriggerWrite[] }

/**
 * How stale what other connections (a CLI command on the same data folder) committed may be, at
 * most, and only while requests come faster than this: the first request after a quiet spell
 * always catches up. Once a millisecond cost the pool list 4% of its time under load (bench/);
 * once every 5 ms was a pragma per agent report (1,000 agents every 10 s), a tenth of what the
 * daemon spent on them. No other connection is the daemon's own: its writes are seen at once.
 */
export const CATCH_UP_MS = 50;

interface Schema {
  tables: Set<string>;
  /** Per table: the tables whose foreign keys point at it (a delete cascades or sets null there). */
  children: Map<string, string[]>;
  /** Per event and table (`update boxes`): its triggers. */
  triggers: Map<string, Trigger[]>;
}

/**
 * When each table last changed, so that read caches (read-cache.ts) know what they may keep.
 * Every statement that may write reports itself here before it runs (statement-cache.ts) and
 * moves on its table and every table the write may change through the schema: a delete the tables
 * whose foreign keys point at it (cascade, set null), any write what its triggers write (the search
 * index), transitively. A statement whose table cannot be told (DDL) moves every table on.
 *
 * Other connections (a CLI command importing into the same data folder) are seen through
 * `PRAGMA data_version`, which changes when another connection commits: then everything moves on.
 * Moving on too much only costs a reload; a table that changed without moving on would serve a
 * stale answer, which is why this sits below every write instead of in the services.
 */
export class TableVersions implements TableClock {
  readonly keeps = true;
  readonly lookups = { hits: 0, misses: 0 };
  private clock = 0;
  /** Nothing read before this is still good: another connection committed, or the schema changed. */
  private epoch = 0;
  private readonly lastWrite = new Map<string, number>();
  private schema!: Schema;
  private affected = new Map<string, string[]>();
  private readonly dataVersion: SqliteDatabase.Statement;
  private readonly schemaVersion: SqliteDatabase.Statement;
  private seenData: unknown;
  private seenSchema: unknown;
  private caughtUpAt = -Infinity;

  constructor(private readonly raw: SqliteDatabase.Database) {
    this.dataVersion = raw.prepare('PRAGMA data_version').pluck();
    this.schemaVersion = raw.prepare('PRAGMA schema_version').pluck();
    this.seenData = this.dataVersion.get();
    this.loadSchema();
  }

  /**
   * What a statement that may write calls before each run. Its SQL is read here once, when it is
   * prepared: parsing it on every run was ~1% of the daemon's time under agent reports.
   */
  writer(sql: string): () => void {
    const w = writeOf(sql);
    return () => {
      if (!w || !this.schema.tables.has(w.table)) {
        this.forgetAll();
        return;
      }
      const at = ++this.clock;
      for (const kind of w.kinds) for (const t of this.affectedBy(w.table, kind, w.columns)) this.lastWrite.set(t, at);
    };
  }

  /**
   * The time to stamp a read with, taken before it runs. Catches up with other connections at
   * most once per CATCH_UP_MS (the pragma, like any statement, opens a read transaction and cost a
   * tenth of a cached catalog request): another process's commit is seen within that.
   */
  now(): number {
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

  /** Whether none of `tables` changed after `at` (a time from now()). Call now() first. */
  unchangedSince(tables: readonly string[], at: number): boolean {
    if (this.epoch > at) return false;
    for (const t of tables) if ((this.lastWrite.get(t) ?? 0) > at) return false;
    return true;
  }

  /** Throws unless every name is a table (or view): a cache keyed on a misread name would never be cleared. */
  checkTables(names: readonly string[]): void {
    const unknown = names.filter((n) => !this.schema.tables.has(n.toLowerCase()));
    if (unknown.length > 0) throw new Error(`not tables of this database: ${unknown.join(', ')}`);
  }

  /**
   * Every table a write of `kind` to `table` may change, itself included; for an update of known
   * `columns`, triggers `UPDATE OF` other columns are left out (an agent report sets no status).
   */
  affectedBy(table: string, kind: Kind, columns?: readonly string[]): string[] {
    const key = `${kind} ${table}${columns ? ` ${columns.join(',')}` : ''}`;
    let list = this.affected.get(key);
    if (!list) {
      const seen = new Set<string>();
      const visit = (t: string, k: Kind, cols?: readonly string[]) => {
        const mark = `${k} ${t}`;
        if (seen.has(mark)) return;
        seen.add(mark);
        for (const trig of this.schema.triggers.get(mark) ?? []) {
          if (cols && trig.of && !trig.of.some((c) => cols.includes(c))) continue;
          for (const w of trig.writes) visit(w.table, w.kind);
        }
        if (k === 'delete') for (const c of this.schema.children.get(t) ?? []) visit(c, 'delete');
      };
      visit(table, kind, columns);
      list = [...new Set([...seen].map((m) => m.slice(m.indexOf(' ') + 1)))].filter((t) => this.schema.tables.has(t));
      this.affected.set(key, list);
    }
    return list;
  }

  private forgetAll(): void {
    this.epoch = ++this.clock;
    if (this.schemaVersion.get() !== this.seenSchema) this.loadSchema();
  }

  private loadSchema(): void {
    this.seenSchema = this.schemaVersion.get();
    const objects = this.raw.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'view', 'trigger')")
      .all() as Array<{ type: string; name: string; tbl_name: string; sql: string | null }>;
    const tables = new Set(objects.filter((o) => o.type !== 'trigger').map((o) => o.name.toLowerCase()));
    const children = new Map<string, string[]>();
    const triggers = new Map<string, Trigger[]>();
    const fkParents = this.raw.prepare('SELECT "table" FROM pragma_foreign_key_list(?)').pluck();
    for (const o of objects) {
      if (o.type === 'table') {
        for (const parent of fkParents.all(o.name) as string[]) {
          const key = parent.toLowerCase();
          children.set(key, [...(children.get(key) ?? []), o.name.toLowerCase()]);
        }
      } else if (o.type === 'trigger') {
        const sql = o.sql ?? '';
        const begin = Math.max(0, sql.search(/\bBEGIN\b/i));
        const head = sql.slice(0, begin).replace(/^\s*CREATE\s+(TEMP\w*\s+)?TRIGGER\s+(IF\s+NOT\s+EXISTS\s+)?\S+/i, '');
        const event = /\b(INSERT|UPDATE|DELETE)\b(?:\s+OF\s+([\w\s,"]+?)\s+ON\b)?/i.exec(head);
        // An event this cannot read: the trigger counts for every kind of write.
        const kinds: Kind[] = event ? [event[1].toLowerCase() as Kind] : ['insert', 'update', 'delete'];
        const of = event?.[2]?.split(',').map((c) => c.trim().replace(/"/g, '').toLowerCase());
        const body = sql.slice(begin);
        const writes: TriggerWrite[] = [];
        const all = new RegExp(WRITE.source, 'gi');
        for (let m = all.exec(body); m; m = all.exec(body)) writes.push(...kindsOf(m, body).map((k) => ({ table: m![3].toLowerCase(), kind: k })));
        for (const kind of kinds) {
          const key = `${kind} ${o.tbl_name.toLowerCase()}`;
          triggers.set(key, [...(triggers.get(key) ?? []), { ...(of ? { of } : {}), writes }]);
        }
      }
    }
    this.schema = { tables, children, triggers };
    this.affected = new Map();
  }
}
