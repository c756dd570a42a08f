import { z } from 'zod';
import { PageQuery } from '../http/jsonapi/pagination';
import { optionalText as text } from '../http/params';
import { REPORTED_STATUSES } from './protocol-service';

export const AgentListQuery = PageQuery.extend({ 'filter[last-ping-since]': text(64) });

/** Boxyard agent protocol bodies (ours; see docs/agent-pools.md). */
export const RegisterBody = z.object({ name: z.string().trim().min(1).max(256).nullish() });
export const ReportBody = z.object({ status: z.enum(REPORTED_STATUSES) });
