import { Link, useLocation, useSearchParams } from 'react-router-dom';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSession } from '../api/session';
import { boxListKey, listBoxes, paramsOf, queryOf, type BoxListParams } from '../api/catalogue';
import type { BoxSummaryJson } from '../../../daemon/src/contract/wire/registry';
import { ErrorNote, Loading } from '../components/ui';
import { BoxFilters } from '../components/catalogue/box-filters';
import { When } from '../components/relative-time';
import { CardTable } from '../components/card-table';

function BoxTable({ boxes }: { boxes: BoxSummaryJson[] }) {
  return (
    <CardTable label="Boxes" columns={['Box', 'Description', 'Current version', 'Downloads', 'Updated']}>
      {boxes.map((b) => (
        <tr key={b.tag}>
          <td data-label="Box">
            <Link to={`/boxes/${encodeURIComponent(b.username)}/${encodeURIComponent(b.name)}`}>{b.tag}</Link>
            {b.private ? <span className="badge">private</span> : null}
          </td>
          <td data-label="Description">{b.short_description}</td>
          <td data-label="Current version">
            {b.current_version?.version ?? <span className="badge badge-unreleased">unreleased</span>}
          </td>
          <td data-label="Downloads">{b.downloads}</td>
          <td data-label="Updated">
            <When iso={b.updated_at} />
          </td>
        </tr>
      ))}
    </CardTable>
  );
}

/** What an empty page means: nothing at all yet, nothing matching, or past the last page. */
function emptyText(p: BoxListParams): string {
  if (p.page > 1) return 'No more boxes: this is past the last page.';
  if (p.q) return `No boxes match “${p.q}”.`;
  if (p.provider || p.architecture) return 'No boxes match these filters.';
  return p.view === 'mine' ? 'You have no boxes yet.' : 'No public boxes here yet.';
}

/**
 * An empty list. Signed in and with nothing at all to show, what to do next and the button to do it (a visitor cannot
 * make boxes, and an empty search or page says only that it is empty).
 */
function EmptyBoxes({ params }: { params: BoxListParams }) {
  const { signedIn } = useSession();
  const unfiltered = params.page === 1 && !params.q && !params.provider && !params.architecture;
  if (!signedIn || !unfiltered) return <p className="muted">{emptyText(params)}</p>;
  return (
    <div className="next-step">
      <p>
        {params.view === 'mine' ? 'You have no boxes yet.' : 'No boxes here yet.'} Add a .box file: its box and version
        are made with it, and once released <code>vagrant box add</code> finds it by its name.
      </p>
      <Link className="button primary" to="/boxes/add">
        Add your first box file
      </Link>
    </div>
  );
}

/** Previous and next page, as links: the page is in the URL, so Back and reload keep it. */
function Pager({ params, next }: { params: BoxListParams; next: number | null }) {
  const to = (page: number) => `?${new URLSearchParams(queryOf({ ...params, page }))}`;
  if (params.page === 1 && next === null) return null;
  return (
    <nav className="pager" aria-label="Pages">
      {params.page > 1 ? (
        <Link to={to(params.page - 1)} rel="prev">
          Previous page
        </Link>
      ) : (
        <span />
      )}
      <span className="muted">Page {params.page}</span>
      {next !== null ? (
        <Link to={to(next)} rel="next">
          Next page
        </Link>
      ) : (
        <span />
      )}
    </nav>
  );
}

/** One page of boxes: one request, whatever the number of boxes. */
function BoxList({ params }: { params: BoxListParams }) {
  const { api } = useSession();
  const q = useQuery({
    queryKey: boxListKey(params),
    queryFn: () => listBoxes(api, params),
    placeholderData: keepPreviousData,
  });
  if (q.isLoading) return <Loading what="boxes" />;
  if (!q.data) return <ErrorNote error={q.error} />;
  return (
    <>
      <ErrorNote error={q.error} />
      {q.data.boxes.length === 0 ? <EmptyBoxes params={params} /> : <BoxTable boxes={q.data.boxes} />}
      <Pager params={params} next={q.data.next_page} />
    </>
  );
}

/** "All" (what search finds for you) and, signed in, "Mine" (your namespaces' boxes, released or not). */
function ViewTabs({ params }: { params: BoxListParams }) {
  const tab = (view: BoxListParams['view'], label: string) => (
    <Link
      to={`?${new URLSearchParams(queryOf({ ...params, view, page: 1 }))}`}
      className={params.view === view ? 'active' : undefined}
      aria-current={params.view === view ? 'page' : undefined}
    >
      {label}
    </Link>
  );
  return (
    <nav className="tabs" aria-label="Which boxes">
      {tab('all', 'All')}
      {tab('mine', 'Mine')}
    </nav>
  );
}

/**
 * The public catalogue for anyone; signed in, also private boxes you may see and a "Mine" view with
 * your unreleased ones, and the ways to add boxes.
 */
export function BoxesPage() {
  const { signedIn } = useSession();
  const location = useLocation();
  const [query, setQuery] = useSearchParams();
  const params = paramsOf(query);
  return (
    <>
      <div className="page-head">
        <h1>Boxes</h1>
        {signedIn && (
          <Link className="button" to="/boxes/new">
            New box
          </Link>
        )}
        {signedIn && (
          <Link className="button primary" to="/boxes/add">
            Add a box file
          </Link>
        )}
      </div>
      {signedIn && <ViewTabs params={params} />}
      <BoxFilters params={params} onChange={(p) => setQuery(queryOf(p))} />
      {params.view === 'mine' && !signedIn ? (
        <p>
          <Link to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`}>Sign in</Link> to see your
          own boxes.
        </p>
      ) : (
        <BoxList params={params} />
      )}
    </>
  );
}
