import { sql } from 'kysely';
import { boxes, type Db } from './box-query';
import { textCandidates, type TextIndex } from './text-search';

export interface SearchFilter {
  q?: string;
  provider?: string;
  architecture?: string;
  sort: 'downloads' | 'created' | 'updated';
  order: 'asc' | 'desc';
  limit: number;
  offset: number;
  /** What the caller may see besides public boxes: everything (administrators) or these namespaces. */
  visible: { all: true } | { ownerIds: string[] };
}

/** Each sort (either way, ties by name then id) has an index of its own: see migration 007. */
const SORT_COLUMN = { downloads: 'boxes.downloads', created: 'boxes.created_at', updated: 'boxes.updated_at' } as const;

/** `%`, `_` and `\` in the user's text match literally. */
const likePattern = (q: string) => `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Boxes with a released version that the caller may see, filtered, sorted and paged, all in SQL. */
export function searchBoxes(db: Db, f: SearchFilter, index: TextIndex) {
  let q = boxes(db).where(sql<boolean>`exists (select 1 from box_versions v where v.box_id = boxes.id and v.status = 'active')`);
  if (!('all' in f.visible)) {
    const ids = f.visible.ownerIds;
    q = q.where((eb) => eb.or([
      eb('boxes.private', '=', 0),
      ...(ids.length ? [eb('boxes.user_id', 'in', ids), eb('boxes.organization_id', 'in', ids)] : []),
    ]));
  }
  if (f.q) {
    const narrowed = textCandidates(index, f.q);
    if (narrowed) q = q.where(narrowed);
    const p = likePattern(f.q);
    q = q.where(sql<boolean>`(lower(boxes.name) like ${p} escape '\\' or lower(boxes.short_description) like ${p} escape '\\'
      or lower(coalesce(users.username, organizations.name)) like ${p} escape '\\')`);
  }
  if (f.provider || f.architecture) {
    q = q.where(sql<boolean>`exists (select 1 from box_versions v join box_providers p on p.version_id = v.id
      where v.box_id = boxes.id and v.status = 'active'
      ${f.provider ? sql`and p.name = ${f.provider}` : sql``} ${f.architecture ? sql`and p.architecture = ${f.architecture}` : sql``})`);
  }
  return q.orderBy(SORT_COLUMN[f.sort], f.order).orderBy('boxes.name_key', 'asc').orderBy('boxes.id', 'asc')
    .limit(f.limit).offset(f.offset);
}
