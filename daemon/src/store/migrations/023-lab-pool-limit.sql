-- Organizations may hold 100 agent pools until an owner says otherwise (orgs/service.ts DEFAULT_AGENT_POOL_LIMIT,
-- which every new organization gets); the column's default of 1 (HCP Terraform's free tier) is no longer used. An
-- organization still at 1 most likely never had it set (an owner who wanted one pool had nothing to set): raised too.
UPDATE organizations SET agent_pool_limit = 100 WHERE agent_pool_limit = 1;
