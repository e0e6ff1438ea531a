-- Migration 1 of the shared store (docs/fleet.md). Applied once per database, in one
-- transaction, under an advisory lock, so many machines may run `remaind init` at once.

CREATE TABLE remaind_projects (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    -- The head of the project's chain: its last seq and that line's SHA-256 (hex). Every
    -- append locks this row, checks it and moves it in the same transaction.
    head_seq    bigint NOT NULL DEFAULT 0,
    head_digest text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- The ledger's lines, byte for byte as the folder's logs/events.jsonl holds them (without
-- the newline), with the SHA-256 the next line's `prev` names.
CREATE TABLE remaind_events (
    project bigint NOT NULL REFERENCES remaind_projects (id),
    seq     bigint NOT NULL CHECK (seq > 0),
    digest  text   NOT NULL,
    line    bytea  NOT NULL,
    PRIMARY KEY (project, seq)
);

-- Content-addressed payloads, in chunks of at most 1 MiB (bytea's 1 GB cap never binds, and
-- no large objects are left orphaned).
CREATE TABLE remaind_artifacts (
    project bigint  NOT NULL REFERENCES remaind_projects (id),
    sha256  text    NOT NULL,
    chunk   integer NOT NULL CHECK (chunk >= 0),
    chunks  integer NOT NULL CHECK (chunks > chunk),
    bytes   bytea   NOT NULL,
    PRIMARY KEY (project, sha256, chunk)
);

-- The project's files other than the log, by their path under .context/: its rules and key
-- (so every machine validates and redacts the same way) and the derived history.
CREATE TABLE remaind_files (
    project bigint NOT NULL REFERENCES remaind_projects (id),
    path    text   NOT NULL,
    sha256  text   NOT NULL,
    bytes   bytea  NOT NULL,
    PRIMARY KEY (project, path)
);

-- Append lines after `p_after`, all or nothing, in one round trip. The project's row lock
-- serializes writers; the check of each line's `seq` and `prev` against the head keeps one
-- gapless chain whatever a client sends. The wake-up NOTIFY is a hint for followers, who read
-- by seq and never rely on it.
CREATE FUNCTION remaind_append(p_project bigint, p_after bigint, p_lines bytea[])
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_head    bigint;
    v_prev    text;
    v_bad     bigint;
    v_count   bigint := coalesce(array_length(p_lines, 1), 0);
BEGIN
    SELECT head_seq, head_digest INTO v_head, v_prev
      FROM remaind_projects WHERE id = p_project FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no project with id %', p_project USING ERRCODE = 'RM002';
    END IF;
    IF v_head <> p_after THEN
        RAISE EXCEPTION 'the head is seq %, not %', v_head, p_after USING ERRCODE = 'RM001';
    END IF;
    IF v_count = 0 THEN
        RETURN v_head;
    END IF;
    -- Every line's header names the next seq and the previous line's hash. The ledger
    -- writes the header in one fixed form at the start of the line,
    -- {"v":1,"seq":N,"id":"eN","ts":"…","prev":"<64 hex>", and only it is read here, with
    -- byte positions (a regular expression costs ten times more), in one set-based pass.
    WITH b AS (
        SELECT t.o, t.l, encode(sha256(t.l), 'hex') AS digest,
               CASE WHEN substring(t.l FROM 1 FOR 13) = '\x7b2276223a312c22736571223a'::bytea
                    THEN encode(substring(t.l FROM 14 FOR
                             nullif(position('\x2c'::bytea IN substring(t.l FROM 14 FOR 21)), 0) - 1),
                         'escape')
               END AS seq,
               encode(substring(t.l FROM
                          nullif(position('\x2270726576223a22'::bytea IN substring(t.l FROM 1 FOR 200)), 0) + 8
                          FOR 64),
                      'escape') AS prev
          FROM unnest(p_lines) WITH ORDINALITY AS t (l, o)
    ), c AS (
        SELECT b.*, coalesce(lag(digest) OVER (ORDER BY o), v_prev) AS expected FROM b
    ), written AS (
        -- Written in the same pass; a refused batch raises below, which undoes it.
        INSERT INTO remaind_events (project, seq, digest, line)
            SELECT p_project, p_after + o, digest, l FROM c
    )
    SELECT min(o) FILTER (WHERE seq IS NULL OR seq <> (p_after + o)::text
                                OR prev IS DISTINCT FROM expected),
           (array_agg(digest ORDER BY o DESC))[1]
      INTO v_bad, v_prev
      FROM c;
    IF v_bad IS NOT NULL THEN
        RAISE EXCEPTION 'line % of the batch does not chain onto seq %', v_bad, p_after + v_bad - 1
            USING ERRCODE = 'RM003';
    END IF;
    UPDATE remaind_projects SET head_seq = p_after + v_count, head_digest = v_prev
     WHERE id = p_project;
    PERFORM pg_notify('remaind_events', p_project::text);
    RETURN p_after + v_count;
END $$;
