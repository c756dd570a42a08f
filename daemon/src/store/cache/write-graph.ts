import { KINDS, type Kind } from './statement-tables';

/**
 * The table a write in a trigger's or function's body names first (`insert [or …] into`, `replace
 * into`, `update [or …]`, `delete from`): those bodies are SQL text read from the database's
 * catalog, the one place tables are read from text (statements are read from their Kysely tree,
 * statement-tables.ts).
 */
const WRITE = /\b(insert(?:\s+or\s+(\w+))?\s+into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+"?(\w+)"?/gi;

function kindsOf(m: RegExpExecArray, body: string): Kind[] {
  const verb = m[1].toLowerCase();
  if (verb.startsWith('delete')) return ['delete'];
  if (verb.startsWith('update')) return ['update'];
  const kinds: Kind[] = ['insert'];
  // REPLACE deletes the row it replaces (cascading); an upsert may update instead.
  if (verb.startsWith('replace') || m[2]?.toLowerCase() === 'replace') kinds.push('delete');
  if (/\bon\s+conflict\b[\s\S]*\bdo\s+update\b/i.test(body)) kinds.push('update');
  return kinds;
}

/** What a database's catalog says about its tables, as each database's clock reads it. */
export interface SchemaFacts {
  /** Tables and views. */
  tables: string[];
  foreignKeys: Array<{ child: string; parent: string }>;
  /** Each trigger's table, its head (`… AFTER UPDATE OF a, b ON t …`) and the body that runs. */
  triggers: Array<{ table: string; head: string; body: string }>;
}

interface TriggerWrite {
  table: string;
  kind: Kind;
}
/** A trigger: what it writes, and for `UPDATE OF a, b` the columns whose update fires it. */
interface Trigger {
  of?: string[];
  writes: TriggerWrite[];
}

/**
 * Which tables a write may change, through the schema: a delete the tables whose foreign keys
 * point at it (cascade, set null), any write what its triggers write (the search index, agent
 * counts), transitively. One copy of these rules for both databases.
 */
export class WriteGraph {
  private readonly tables: Set<string>;
  /** Per table: the tables whose foreign keys point at it. */
  private readonly children = new Map<string, string[]>();
  /** Per event and table (`update boxes`): its triggers. */
  private readonly triggers = new Map<string, Trigger[]>();
  private readonly affected = new Map<string, string[]>();

  constructor(facts: SchemaFacts) {
    this.tables = new Set(facts.tables.map((t) => t.toLowerCase()));
    for (const { child, parent } of facts.foreignKeys) {
      const key = parent.toLowerCase();
      this.children.set(key, [...(this.children.get(key) ?? []), child.toLowerCase()]);
    }
    for (const t of facts.triggers) this.addTrigger(t.table.toLowerCase(), t.head, t.body);
  }

  has(table: string): boolean {
    return this.tables.has(table.toLowerCase());
  }

  /** Throws unless every name is a table (or view): a cache keyed on a misread name would never be cleared. */
  checkTables(names: readonly string[]): void {
    const unknown = names.filter((n) => !this.has(n));
    if (unknown.length > 0) throw new Error(`not tables of this database: ${unknown.join(', ')}`);
  }

  /**
   * Every table a write of `kinds` to `table` may change, itself included; for an update of known
   * `columns`, triggers `UPDATE OF` other columns are left out (an agent report sets no status).
   */
  affectedBy(table: string, kinds: readonly Kind[] = KINDS, columns?: readonly string[]): string[] {
    const key = `${kinds.join(',')} ${table}${columns ? ` ${columns.join(',')}` : ''}`;
    let list = this.affected.get(key);
    if (!list) {
      const seen = new Set<string>();
      const visit = (t: string, k: Kind, cols?: readonly string[]) => {
        const mark = `${k} ${t}`;
        if (seen.has(mark)) return;
        seen.add(mark);
        for (const trig of this.triggers.get(mark) ?? []) {
          if (cols && trig.of && !trig.of.some((c) => cols.includes(c))) continue;
          for (const w of trig.writes) visit(w.table, w.kind);
        }
        if (k === 'delete') for (const c of this.children.get(t) ?? []) visit(c, 'delete');
      };
      for (const kind of kinds) visit(table, kind, columns);
      list = [...new Set([...seen].map((m) => m.slice(m.indexOf(' ') + 1)))].filter((t) => this.tables.has(t));
      this.affected.set(key, list);
    }
    return list;
  }

  private addTrigger(table: string, head: string, body: string): void {
    // SQLite's `UPDATE OF a, b ON t`; PostgreSQL's may name several events: `INSERT OR UPDATE OF a OR DELETE ON t`.
    const events = [...head.matchAll(/\b(INSERT|UPDATE|DELETE)\b(?:\s+OF\s+([\w\s,"]+?)(?=\s+(?:ON|OR)\b))?/gi)];
    const writes: TriggerWrite[] = [];
    const all = new RegExp(WRITE);
    for (let m = all.exec(body); m; m = all.exec(body)) {
      const written = m[3].toLowerCase();
      writes.push(...kindsOf(m, body).map((k) => ({ table: written, kind: k })));
    }
    // An event this cannot read: the trigger counts for every kind of write.
    const fired: Array<{ kind: Kind; of?: string[] }> =
      events.length > 0
        ? events.map((e) => ({
            kind: e[1].toLowerCase() as Kind,
            of: e[2]?.split(',').map((c) => c.trim().replace(/"/g, '').toLowerCase()),
          }))
        : KINDS.map((kind) => ({ kind }));
    for (const { kind, of } of fired) {
      const key = `${kind} ${table}`;
      this.triggers.set(key, [...(this.triggers.get(key) ?? []), { ...(of ? { of } : {}), writes }]);
    }
  }
}

/** A trigger's SQL split into its head and the body it runs (SQLite's `CREATE TRIGGER … BEGIN … END`). */
export function splitTrigger(sql: string): { head: string; body: string } {
  const begin = Math.max(0, sql.search(/\bBEGIN\b/i));
  const head = sql.slice(0, begin).replace(/^\s*CREATE\s+(TEMP\w*\s+)?TRIGGER\s+(IF\s+NOT\s+EXISTS\s+)?\S+/i, '');
  return { head, body: sql.slice(begin) };
}
