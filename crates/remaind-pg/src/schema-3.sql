-- Migration 3: full-text search on the server, for followers that keep no folder
-- (`remaind --store … search`; docs/fleet.md). Indexed after the fact, by the searcher, from
-- the last indexed seq on: an append never pays for it.
CREATE TABLE remaind_search (
    project    bigint   NOT NULL,
    seq        bigint   NOT NULL,
    kind       text     NOT NULL,
    importance smallint NOT NULL,
    -- What a hit's snippet is cut from: the event's text, else its tool's name and input.
    body       text     NOT NULL,
    -- The event's text (weight A), its tool's strings (B: name, input, output).
    doc        tsvector NOT NULL,
    PRIMARY KEY (project, seq)
);
CREATE INDEX remaind_search_doc ON remaind_search USING gin (doc);

-- One event line's search row. The line is a JSON object (the ledger wrote it).
CREATE FUNCTION remaind_search_row(p_line bytea, OUT kind text, OUT importance smallint,
                                   OUT body text, OUT doc tsvector)
LANGUAGE sql IMMUTABLE AS $$
    SELECT j->>'kind',
           coalesce((j->>'importance')::smallint, 1),
           left(coalesce(nullif(j->>'text', ''),
                         concat_ws(' ', j->'tool'->>'name', j->'tool'->>'input')), 4000),
           setweight(to_tsvector('english', coalesce(j->>'text', '')), 'A')
             || setweight(jsonb_to_tsvector('english', coalesce(j->'tool', '{}'::jsonb),
                                            '["string"]'), 'B')
      FROM (SELECT convert_from(p_line, 'UTF8')::jsonb AS j) AS l
$$;
