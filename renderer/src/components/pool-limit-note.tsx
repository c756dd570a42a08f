import { Link } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import { isApiError } from '../api/client';
import { useSession } from '../api/session';
import { getOrganizationSettings, updateOrganizationSettings } from '../api/organization-settings';
import { queryKeys } from '../api/query-keys';
import { ErrorNote, useAction } from './ui';

/**
 * What a pool create refused with `limit_reached` shows instead of the API's text (which names
 * the PATCH requests a script would send): the limit in words, a button that raises it by one and
 * creates the pool after all, and the way to the organization's settings.
 */
export function PoolLimitNote({ org, retry }: { org: string; retry: () => void }) {
  const { api } = useSession();
  const settings = useQuery({
    queryKey: queryKeys.organizationSettings(org),
    queryFn: () => getOrganizationSettings(api, org),
  });
  const limit = settings.data?.attributes['agent-pool-limit'];
  const raise = useAction(
    (to: number) => updateOrganizationSettings(api, org, { agentPoolLimit: to }),
    [queryKeys.organization(org)],
    retry,
  );
  return (
    <div className="note" role="alert">
      <p>
        {org} already has{' '}
        {limit === undefined
          ? 'as many agent pools as it may'
          : `${limit} agent pool${limit === 1 ? '' : 's'}, its limit`}
        . An owner can raise the limit, or delete a pool first.
      </p>
      <div className="row">
        {limit !== undefined && (
          <button type="button" onClick={() => raise.mutate(limit + 1)} disabled={raise.isPending}>
            Raise the limit to {limit + 1} and create the pool
          </button>
        )}
        <Link to={`/organizations/${encodeURIComponent(org)}`}>Organization settings</Link>
      </div>
      {isApiError(raise.error, 'forbidden') ? (
        <p className="error">Only an owner of {org} can raise its limit.</p>
      ) : (
        <ErrorNote error={raise.error ?? settings.error} />
      )}
    </div>
  );
}
