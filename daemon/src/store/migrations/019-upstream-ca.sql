-- An upstream served over HTTPS by a CA of its own (another lab's Boxyard on --tls
-- auto): its CA certificate (PEM), trusted for that upstream only, besides the system's.
ALTER TABLE upstreams ADD COLUMN ca TEXT;
