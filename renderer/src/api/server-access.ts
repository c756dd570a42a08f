import { useQuery } from '@tanstack/react-query';
import { useSession } from './session';
import { load } from './load';
import { queryKeys } from './query-keys';
import { PublicCaAnswer } from '../../../daemon/src/contract/wire/ca';
import { CLIENT_CA_FILE, type ServerAccess } from '../../../daemon/src/contract/lan';

/**
 * How the commands this page hands out reach the daemon (contract/lan.ts `ServerAccess`): at `url` (this page's
 * origin unless given: a colleague on the LAN typed the address their machines reach too) and, when it serves HTTPS
 * with its own CA (`GET /api/boxyard/ca`, to anyone), trusting that CA from the file the trust step writes.
 * `fingerprint` is that CA's; `ready` is false until the answer is in, so that no command is shown without its trust
 * step.
 */
export function useServerAccess(url: string = window.location.origin): {
  server: ServerAccess;
  fingerprint: string | null;
  ready: boolean;
} {
  const { api } = useSession();
  const q = useQuery({
    queryKey: queryKeys.publicCa,
    queryFn: () => load(api, PublicCaAnswer, '/api/boxyard/ca').then((r) => r.ca),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const fingerprint = q.data?.fingerprint ?? null;
  return { server: { url, caFile: fingerprint ? CLIENT_CA_FILE : null }, fingerprint, ready: q.isSuccess };
}
