import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { cacheSize, listCache, purgeCache } from '../../api/mirrors';
import type { CachedBoxJson } from '../../../../daemon/src/contract/wire/mirror';
import { useSession } from '../../api/session';
import { ErrorNote, Loading, Section, confirmed, useAction } from '../ui';
import { formatBytes } from '../format';
import { mirrorResults, queryKeys } from '../../api/query-keys';
import { When } from '../relative-time';
import { CardTable } from '../card-table';

/** The pull-through cache's boxes; the box page asks the same query for its "cached from" mark. */
export function useCachedBoxes() {
  const { api } = useSession();
  return useQuery({ queryKey: queryKeys.cache, queryFn: () => listCache(api), staleTime: 30_000 });
}

/** The cache entry of a box, if the pull-through cache made it. */
export function useCachedBox(tag: string): CachedBoxJson | undefined {
  return useCachedBoxes().data?.find((c) => c.tag === tag);
}

/** The cache's size (files stored here for its boxes) and, for administrators, the purge of all of it. */
function CacheSize() {
  const { api, admin } = useSession();
  // Under the cache's key: whatever refreshes the cached boxes refreshes their size too.
  const size = useQuery({ queryKey: [...queryKeys.cache, 'size'], queryFn: () => cacheSize(api), staleTime: 30_000 });
  const purge = useAction(() => purgeCache(api), mirrorResults);
  const s = size.data;
  return (
    <div className="row">
      {s && (
        <p>
          <output aria-label="Cache size">
            {s.boxes} box{s.boxes === 1 ? '' : 'es'}, {s.files} file{s.files === 1 ? '' : 's'} stored,{' '}
            {formatBytes(s.bytes)}
          </output>
        </p>
      )}
      {admin && s && s.boxes > 0 && (
        <button
          type="button"
          className="danger small"
          disabled={purge.isPending}
          onClick={() =>
            confirmed('Purge the pull-through cache: its boxes are deleted here and fetched again on their next use') &&
            purge.mutate(undefined)
          }
        >
          Purge cache
        </button>
      )}
      {purge.data && (
        <span className="muted" role="status">
          Purged {purge.data.boxes.length} box{purge.data.boxes.length === 1 ? '' : 'es'} (
          {formatBytes(purge.data.bytes)}); the files go at the next garbage collection.
        </span>
      )}
      <ErrorNote error={size.error ?? purge.error} />
    </div>
  );
}

/** Purge one box (for administrators: the column is theirs only). */
function PurgeOne({ tag }: { tag: string }) {
  const { api } = useSession();
  const purge = useAction(() => purgeCache(api, tag), mirrorResults);
  return (
    <>
      <button
        type="button"
        className="danger small"
        disabled={purge.isPending}
        aria-label={`Purge ${tag}`}
        onClick={() => confirmed(`Purge ${tag} from the cache`) && purge.mutate(undefined)}
      >
        Purge
      </button>
      <ErrorNote error={purge.error} />
    </>
  );
}

export function CachedBoxes() {
  const { admin } = useSession();
  const cache = useCachedBoxes();
  return (
    <Section title="Cached boxes">
      {cache.isLoading ? <Loading what="cached boxes" /> : <ErrorNote error={cache.error} />}
      <CacheSize />
      {cache.data?.length === 0 && (
        <p className="muted">
          Nothing cached yet. With a pull-through upstream set in Settings, boxes this daemon does not hold are fetched
          on first use and listed here.
        </p>
      )}
      {cache.data && cache.data.length > 0 && (
        <CardTable
          label="Cached boxes"
          columns={['Box', 'From', 'Source', 'Files cached', 'Synced', admin && 'Change']}
        >
          {cache.data.map((c) => (
            <tr key={c.tag}>
              <td data-label="Box">
                <Link to={`/boxes/${c.tag}`}>{c.tag}</Link>
              </td>
              <td data-label="From">{c.upstream?.name ?? '—'}</td>
              <td data-label="Source">{c.source}</td>
              <td data-label="Files cached">
                {c.providers_cached}/{c.providers_total}
              </td>
              <td data-label="Synced">
                <When iso={c.synced_at} />
              </td>
              {admin && (
                <td>
                  <PurgeOne tag={c.tag} />
                </td>
              )}
            </tr>
          ))}
        </CardTable>
      )}
    </Section>
  );
}
