import type { CompiledQuery, OperationNode, QueryExecutorProvider, QueryResult, RawBuilder } from 'kysely';

export type Kind = 'insert' | 'update' | 'delete';
export const KINDS: readonly Kind[] = ['insert', 'update', 'delete'];

/** A table a statement writes directly: how, and for an UPDATE the columns it sets (undefined: any). */
export interface Write {
  table: string;
  kinds: Kind[];
  columns?: string[];
}

/**
 * What a statement touches, read from the operation-node tree Kysely compiled it from (never from
 * its SQL text): the tables it reads (CTE names left out), the tables it writes, whether it holds
 * raw SQL text (`sql` templates, whose tables cannot be seen unless `sql.table()` names them), and
 * `unknown` when what it writes cannot be told (a raw statement, DDL): then it may write anything.
 */
export interface StatementTables {
  reads: string[];
  writes: Write[];
  raw: boolean;
  unknown: boolean;
}

type Node = OperationNode & Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && typeof (v as Node).kind === 'string';
const nameOfTable = (n: Node) => ((n.table as Node).identifier as Node).name as string;

/** Statements whose tree this reads; any other root (DDL, raw SQL) writes what cannot be told. */
const QUERIES = new Set(['SelectQueryNode', 'InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/** The table nodes a write's target is made of (`t`, `t as a`, a list of them); undefined if it holds anything else. */
function targets(node: unknown): Node[] | undefined {
  if (!isNode(node)) return undefined;
  if (node.kind === 'TableNode') return [node];
  if (node.kind === 'AliasNode') return targets(node.node);
  if (node.kind === 'FromNode' || node.kind === 'ListNode') {
    const parts = ((node.froms ?? node.items) as unknown[]).map(targets);
    return parts.every((p) => p !== undefined) ? (parts.flat() as Node[]) : undefined;
  }
  return undefined;
}

/** The columns a list of `column = value` updates sets, or undefined when one is not a plain column. */
function columnsOf(updates: unknown): string[] | undefined {
  const list = (updates ?? []) as Node[];
  const cols = list.map((u) =>
    isNode(u.column) && u.column.kind === 'ColumnNode'
      ? ((u.column.column as Node).name as string).toLowerCase()
      : undefined,
  );
  return cols.every((c) => c !== undefined) ? (cols as string[]) : undefined;
}

/**
 * How a write statement node writes its target: an upsert may update, SQLite's REPLACE deletes the row it replaces
 * (cascading).
 */
function writeOf(node: Node): { target: unknown; kinds: Kind[]; columns?: string[] } {
  if (node.kind === 'UpdateQueryNode')
    return { target: node.table, kinds: ['update'], columns: columnsOf(node.updates) };
  if (node.kind === 'DeleteQueryNode') return { target: node.from, kinds: ['delete'] };
  if (node.kind === 'MergeQueryNode') return { target: node.into, kinds: [...KINDS] };
  const kinds: Kind[] = ['insert'];
  if (node.replace || (isNode(node.orAction) && String(node.orAction.action).toLowerCase() === 'replace'))
    kinds.push('delete');
  if ((isNode(node.onConflict) && node.onConflict.updates) || node.onDuplicateKey) kinds.push('update');
  return { target: node.into, kinds };
}

/** The names a WITH defines, and which of them its expressions see (a recursive one all, else those before). */
function ctes(node: Node): Array<{ name: string; body: unknown; sees: string[] }> {
  if (!isNode(node.with)) return [];
  const w = node.with;
  const list = w.expressions as Node[];
  const names = list.map((c) => nameOfTable((c.name as Node).table as Node).toLowerCase());
  return list.map((c, i) => ({ name: names[i], body: c.expression, sees: w.recursive ? names : names.slice(0, i) }));
}

/** Raw nodes Kysely's builders make themselves: an order's direction, a join's `on true`. */
const kyselysOwnRaw = (parent: Node, key: string, child: unknown) =>
  isNode(child) &&
  child.kind === 'RawNode' &&
  ((parent.kind === 'OrderByItemNode' && key === 'direction') ||
    (parent.kind === 'JoinNode' && key === 'on' && (child.sqlFragments as string[]).join('') === 'true'));

/** The tables `root` reads and writes (StatementTables). */
export function statementTables(root: OperationNode): StatementTables {
  const out: StatementTables = { reads: [], writes: [], raw: false, unknown: !QUERIES.has(root.kind) };
  const reads = new Set<string>();
  const visit = (v: unknown, scope: ReadonlySet<string>): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x, scope);
      return;
    }
    if (!isNode(v)) return;
    if (v.kind === 'TableNode') {
      const name = nameOfTable(v).toLowerCase();
      if (!scope.has(name)) reads.add(name);
      return;
    }
    // `t.column`, `t.*`: the table is read where FROM or JOIN names it, or is an alias or a CTE.
    if (v.kind === 'ReferenceNode') return;
    if (v.kind === 'RawNode' && (v.sqlFragments as string[]).some((f) => f.trim() !== '')) out.raw = true;
    let inner = scope;
    const defined = ctes(v);
    if (defined.length > 0) {
      for (const c of defined) visit(c.body, new Set([...scope, ...c.sees]));
      inner = new Set([...scope, ...defined.map((c) => c.name)]);
    }
    let skip: unknown;
    if (
      v.kind === 'InsertQueryNode' ||
      v.kind === 'UpdateQueryNode' ||
      v.kind === 'DeleteQueryNode' ||
      v.kind === 'MergeQueryNode'
    ) {
      const w = writeOf(v);
      const tables = targets(w.target);
      if (!tables) out.unknown = true;
      for (const t of tables ?? [])
        out.writes.push({
          table: nameOfTable(t).toLowerCase(),
          kinds: w.kinds,
          ...(w.columns && w.kinds.length === 1 ? { columns: w.columns } : {}),
        });
      skip = w.target;
    }
    for (const [key, child] of Object.entries(v)) {
      if (key === 'with' && defined.length > 0) continue;
      if (kyselysOwnRaw(v, key, child)) continue;
      // The target is written (a read of its rows in the same statement is the write's own).
      if (child === skip) continue;
      visit(child, inner);
    }
  };
  visit(root, new Set());
  out.reads = [...reads];
  return out;
}

/**
 * A compiled raw statement its caller vouches writes nothing (statementTables calls any raw
 * statement `unknown`, since SQL text is never read here): see readsOnly().
 */
const READS_ONLY = Symbol('boxyard.readsOnly');

/** `compiled`, marked as a statement that only reads (a raw SELECT): no table moves on when it runs. */
export function readsOnly<R>(compiled: CompiledQuery<R>): CompiledQuery<R> {
  return Object.assign({ ...compiled }, { [READS_ONLY]: true });
}

/** Runs a raw statement that only reads (`sql\`select …\``), without moving any table on. */
export function executeReadOnly<R>(query: RawBuilder<R>, db: QueryExecutorProvider): Promise<QueryResult<R>> {
  return db.getExecutor().executeQuery(readsOnly(query.compile(db)));
}

/** Whether `compiled` was marked readsOnly. */
export function markedReadOnly(compiled: CompiledQuery): boolean {
  return (compiled as unknown as Record<symbol, unknown>)[READS_ONLY] === true;
}

/** What a statement marked readsOnly touches: raw SQL, which writes nothing. */
export const READ_ONLY_RAW: StatementTables = Object.freeze({ reads: [], writes: [], raw: true, unknown: false });
