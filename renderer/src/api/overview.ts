import type { Fetcher } from './client';
import { load } from './load';
import { OverviewAnswer } from '../../../daemon/src/contract/wire/overview';

/** The overview page: storage, counts, the URL for colleagues, version, health, recent activity. */
export const getOverview = (api: Fetcher) => load(api, OverviewAnswer, '/api/boxyard/overview').then((r) => r.overview);
