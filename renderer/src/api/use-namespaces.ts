import { useQuery } from '@tanstack/react-query';
import { listOrganizations } from './accounts';
import { useSession } from './session';
import { queryKeys } from './query-keys';

/** The signed-in user's own name followed by the organizations they belong to. */
export function useNamespaces(): { names: string[]; orgs: string[]; isLoading: boolean; error: unknown } {
  const { api, username } = useSession();
  const orgs = useQuery({ queryKey: queryKeys.organizations, queryFn: () => listOrganizations(api) });
  const orgNames = (orgs.data ?? []).map((o) => o.name);
  return {
    names: username ? [username, ...orgNames] : orgNames,
    orgs: orgNames,
    isLoading: orgs.isLoading || !username,
    error: orgs.error,
  };
}
