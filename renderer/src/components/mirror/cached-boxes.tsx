import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { listCache } from '../../api/mirrors';
import type { CachedBoxJson } from '../../../../daemon/src/contract/wire-mirror';
import { useSession } from '../../api/session';
import { ErrorNote, Loading, Section, formatTime } from '../ui';
import { queryKeys } from '../../api/query-keys';

/** The pull-through cache's boxes; the box page asks the same query for its "cached from" mark. */
export function useCachedBoxes() {
  const { api } = useSession();
  return useQuery({ queryKey: queryKeys.cache, queryFn: () => listCache(api), staleTime: 30_000 });
}

/** The cache entry of a box, if the pull-through cache made it. */
export function useCachedBox(tag: string): CachedBoxJson | undefined {
  return useCachedBoxes().data?.find((c) => c.tag === tag);
}

export function CachedBoxes() {
  const cache = useCachedBoxes();
  return (
    <Section title="Cached boxes">
      {cache.isLoading ? <Loading what="cached boxes" /> : <ErrorNote error={cache.error} />}
      {cache.data?.length === 0 && <p className="muted">Nothing cached yet. With a pull-through upstream set in Settings, boxes this daemon does not hold are fetched on first use and listed here.</p>}
      {cache.data && cache.data.length > 0 && (
        <table aria-label="Cached boxes">
          <thead><tr><th>Box</th><th>From</th><th>Source</th><th>Files cached</th><th>Synced</th></tr></thead>
          <tbody>
            {cache.data.map((c) => (
              <tr key={c.tag}>
                <td><Link to={`/boxes/${c.tag}`}>{c.tag}</Link></td>
                <td>{c.upstream?.name ?? '—'}</td>
                <td>{c.source}</td>
                <td>{c.providers_cached}/{c.providers_total}</td>
                <td>{formatTime(c.synced_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
