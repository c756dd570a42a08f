import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { listNamespaces, searchBoxes } from '../api/boxes';
import { useSession } from '../api/session';
import type { BoxSummaryJson } from '../../../daemon/src/contract/wire-registry';
import { ErrorNote, Loading, Section, formatTime } from '../components/ui';
import { ImportDrop } from '../components/mirror/import-drop';
import { queryKeys } from '../api/query-keys';

function BoxTable({ boxes, empty }: { boxes: BoxSummaryJson[]; empty: string }) {
  if (boxes.length === 0) return <p className="muted">{empty}</p>;
  return (
    <table>
      <thead><tr><th>Box</th><th>Description</th><th>Current version</th><th>Downloads</th><th>Updated</th></tr></thead>
      <tbody>
        {boxes.map((b) => (
          <tr key={b.tag}>
            <td><Link to={`/boxes/${b.username}/${b.name}`}>{b.tag}</Link>{b.private ? <span className="badge">private</span> : null}</td>
            <td>{b.short_description}</td>
            <td>{b.current_version?.version ?? '—'}</td>
            <td>{b.downloads}</td>
            <td>{formatTime(b.updated_at)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Each of the user's namespaces with its boxes: one request for all of them. */
function NamespaceList() {
  const { api } = useSession();
  const q = useQuery({ queryKey: queryKeys.namespaces, queryFn: () => listNamespaces(api) });
  if (q.isLoading) return <Loading what="boxes" />;
  if (!q.data) return <ErrorNote error={q.error} />;
  return (
    <>
      <ErrorNote error={q.error} />
      {q.data.map((ns) => <Section key={ns.name} title={ns.name}><BoxTable boxes={ns.boxes} empty="No boxes here yet." /></Section>)}
    </>
  );
}

function SearchResults({ query }: { query: string }) {
  const { api } = useSession();
  const q = useQuery({ queryKey: queryKeys.search(query), queryFn: () => searchBoxes(api, query) });
  return (
    <Section title={`Search: ${query}`}>
      {q.isLoading ? <Loading what="results" /> : <ErrorNote error={q.error} />}
      {q.data && <BoxTable boxes={q.data} empty={`No boxes match “${query}”.`} />}
    </Section>
  );
}

/** Your boxes and your organizations' boxes, or search results across everything you may see. */
export function BoxesPage() {
  const [params, setParams] = useSearchParams();
  const query = params.get('q') ?? '';
  const [draft, setDraft] = useState(query);
  const [importing, setImporting] = useState(false);
  return (
    <>
      <div className="page-head">
        <h1>Boxes</h1>
        <form className="inline" role="search" onSubmit={(e) => { e.preventDefault(); setParams(draft ? { q: draft } : {}); }}>
          <input type="search" placeholder="Search boxes" aria-label="Search boxes" value={draft} onChange={(e) => setDraft(e.target.value)} />
          <button type="submit">Search</button>
        </form>
        <button type="button" onClick={() => setImporting(!importing)}>Import .box files</button>
        <Link className="button primary" to="/boxes/new">New box</Link>
      </div>
      {importing && <Section title="Import .box files"><ImportDrop /></Section>}
      {query ? <SearchResults query={query} /> : <NamespaceList />}
    </>
  );
}
