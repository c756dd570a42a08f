-- Downloads per provider (the box page shows them per provider and per version). A
-- table of its own rather than a column of box_providers: every catalog and box answer is read
-- from caches kept until box_providers changes (store/cache/), and a download must not throw
-- them away. A provider without a row has not been downloaded; its row goes with it.
CREATE TABLE provider_downloads (
  provider_id TEXT PRIMARY KEY REFERENCES box_providers (id) ON DELETE CASCADE,
  downloads INTEGER NOT NULL DEFAULT 0
);
