-- Search and the web UI's box list sort by name too: either way, ties by id, walked in
-- one of these and stopped after the page, as the other sorts are (migration 007).
CREATE INDEX boxes_name_asc ON boxes (name_key, id);
CREATE INDEX boxes_name_desc ON boxes (name_key DESC, id);
