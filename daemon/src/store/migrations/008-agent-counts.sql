-- Each pool's agent counts, kept by triggers: a pool page and an agents page read them
-- instead of counting a thousand agents per request. `agent_count` is what the API calls
-- agent-count: agents that are idle, busy or unknown (contract/wire/jsonapi.ts).
ALTER TABLE agent_pools ADD COLUMN agent_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agent_pools ADD COLUMN agent_total INTEGER NOT NULL DEFAULT 0;

UPDATE agent_pools SET
  agent_count = (SELECT count(*) FROM agents WHERE agents.pool_id = agent_pools.id AND agents.status IN ('idle', 'busy', 'unknown')),
  agent_total = (SELECT count(*) FROM agents WHERE agents.pool_id = agent_pools.id);

-- @dialect sqlite
CREATE TRIGGER agents_count_insert AFTER INSERT ON agents BEGIN
  UPDATE agent_pools SET agent_total = agent_total + 1,
    agent_count = agent_count + (new.status IN ('idle', 'busy', 'unknown'))
  WHERE id = new.pool_id;
END;

CREATE TRIGGER agents_count_delete AFTER DELETE ON agents BEGIN
  UPDATE agent_pools SET agent_total = agent_total - 1,
    agent_count = agent_count - (old.status IN ('idle', 'busy', 'unknown'))
  WHERE id = old.pool_id;
END;

-- Reports set the status every time: only a change between live and not live (or of pool) counts.
CREATE TRIGGER agents_count_update AFTER UPDATE OF status, pool_id ON agents
WHEN old.pool_id IS NOT new.pool_id OR (old.status IN ('idle', 'busy', 'unknown')) <> (new.status IN ('idle', 'busy', 'unknown'))
BEGIN
  UPDATE agent_pools SET agent_total = agent_total - 1,
    agent_count = agent_count - (old.status IN ('idle', 'busy', 'unknown'))
  WHERE id = old.pool_id;
  UPDATE agent_pools SET agent_total = agent_total + 1,
    agent_count = agent_count + (new.status IN ('idle', 'busy', 'unknown'))
  WHERE id = new.pool_id;
END;

-- @dialect postgres
CREATE FUNCTION agents_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_pools SET agent_total = agent_total + 1,
    agent_count = agent_count + (NEW.status IN ('idle', 'busy', 'unknown'))::int
  WHERE id = NEW.pool_id;
  RETURN NULL;
END $$;
CREATE TRIGGER agents_count_insert AFTER INSERT ON agents FOR EACH ROW EXECUTE FUNCTION agents_count_insert();

CREATE FUNCTION agents_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_pools SET agent_total = agent_total - 1,
    agent_count = agent_count - (OLD.status IN ('idle', 'busy', 'unknown'))::int
  WHERE id = OLD.pool_id;
  RETURN NULL;
END $$;
CREATE TRIGGER agents_count_delete AFTER DELETE ON agents FOR EACH ROW EXECUTE FUNCTION agents_count_delete();

CREATE FUNCTION agents_count_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agent_pools SET agent_total = agent_total - 1,
    agent_count = agent_count - (OLD.status IN ('idle', 'busy', 'unknown'))::int
  WHERE id = OLD.pool_id;
  UPDATE agent_pools SET agent_total = agent_total + 1,
    agent_count = agent_count + (NEW.status IN ('idle', 'busy', 'unknown'))::int
  WHERE id = NEW.pool_id;
  RETURN NULL;
END $$;
CREATE TRIGGER agents_count_update AFTER UPDATE OF status, pool_id ON agents FOR EACH ROW
WHEN (OLD.pool_id IS DISTINCT FROM NEW.pool_id OR (OLD.status IN ('idle', 'busy', 'unknown')) <> (NEW.status IN ('idle', 'busy', 'unknown')))
EXECUTE FUNCTION agents_count_update();
