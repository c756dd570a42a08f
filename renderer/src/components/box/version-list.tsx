import { useSearchParams } from 'react-router-dom';
import type { VersionJson } from '../../../../daemon/src/contract/wire/registry';
import type { BoxStatsAnswer } from '../../../../daemon/src/contract/wire/box-stats';
import { VersionCard } from '../version-card';

/** Versions per page: a box with a hundred versions stays a short page. */
export const VERSIONS_PER_PAGE = 10;

/** The page shown, from the address (`?versions=2`), so that it survives a reload and can be shared. */
function usePage(pages: number): [number, (n: number) => void] {
  const [params, setParams] = useSearchParams();
  const asked = Number.parseInt(params.get('versions') ?? '1', 10);
  const page = Number.isFinite(asked) ? Math.min(Math.max(asked, 1), Math.max(pages, 1)) : 1;
  const go = (n: number) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      if (n <= 1) next.delete('versions');
      else next.set('versions', String(n));
      return next;
    });
  return [page, go];
}

function Pager({
  page,
  pages,
  total,
  go,
  label,
}: {
  page: number;
  pages: number;
  total: number;
  go: (n: number) => void;
  label: string;
}) {
  if (pages <= 1) return null;
  const first = (page - 1) * VERSIONS_PER_PAGE + 1;
  const last = Math.min(page * VERSIONS_PER_PAGE, total);
  return (
    <nav className="pager" aria-label={label}>
      <button type="button" className="small" disabled={page <= 1} onClick={() => go(page - 1)}>
        Newer versions
      </button>
      <span className="muted">
        Versions {first}–{last} of {total}
      </span>
      <button type="button" className="small" disabled={page >= pages} onClick={() => go(page + 1)}>
        Older versions
      </button>
    </nav>
  );
}

/** The box's versions, newest first as the API lists them, a page at a time. */
export function VersionList({
  user,
  name,
  versions,
  stats,
  manage,
}: {
  user: string;
  name: string;
  versions: VersionJson[];
  stats: BoxStatsAnswer['stats'] | undefined;
  manage: boolean;
}) {
  const pages = Math.ceil(versions.length / VERSIONS_PER_PAGE);
  const [page, go] = usePage(pages);
  if (versions.length === 0) return <p className="muted">No versions yet.</p>;
  const shown = versions.slice((page - 1) * VERSIONS_PER_PAGE, page * VERSIONS_PER_PAGE);
  return (
    <>
      <Pager page={page} pages={pages} total={versions.length} go={go} label="Version pages" />
      {shown.map((v) => (
        <VersionCard
          key={v.version}
          user={user}
          name={name}
          version={v}
          manage={manage}
          stats={stats?.versions.find((s) => s.version === v.version)}
        />
      ))}
      <Pager page={page} pages={pages} total={versions.length} go={go} label="Version pages, at the end" />
    </>
  );
}
