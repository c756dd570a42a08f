-- An agent token's agents exit when the token goes (revoked, or its pool deleted), whoever deletes
-- it: the rule lives here rather than in two repositories (pools/ owns tokens, agents/ the agents).
-- BEFORE: the foreign key then sets agents.token_id to NULL.
-- @dialect sqlite
CREATE TRIGGER agent_tokens_revoked_agents_exit BEFORE DELETE ON agent_tokens BEGIN
  UPDATE agents SET status = 'exited' WHERE token_id = old.id AND status NOT IN ('errored', 'exited');
END;

-- @dialect postgres
CREATE FUNCTION agent_tokens_revoked_agents_exit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE agents SET status = 'exited' WHERE token_id = OLD.id AND status NOT IN ('errored', 'exited');
  RETURN OLD;
END $$;
CREATE TRIGGER agent_tokens_revoked_agents_exit BEFORE DELETE ON agent_tokens FOR EACH ROW EXECUTE FUNCTION agent_tokens_revoked_agents_exit();
