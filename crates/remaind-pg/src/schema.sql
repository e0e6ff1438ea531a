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
    v_line    bytea;
    v_header  text[];
    v_digests text[] := '{}';
BEGIN
    SELECT head_seq, head_digest INTO v_head, v_prev
      FROM remaind_projects WHERE id = p_project FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no project with id %', p_project USING ERRCODE = 'RM002';
    END IF;
    IF v_head <> p_after THEN
        RAISE EXCEPTION 'the head is seq %, not %', v_head, p_after USING ERRCODE = 'RM001';
    END IF;
    FOREACH v_line IN ARRAY p_lines LOOP
        -- The ledger writes every line's header in one fixed form; only it is read here.
        v_header := regexp_match(
            encode(substring(v_line FROM 1 FOR 256), 'escape'),
            '^\{"v":1,"seq":([0-9]+),"id":"e[0-9]+","ts":"[^"]*","prev":"([0-9a-f]{64})",');
        IF v_header IS NULL
           OR v_header[1]::numeric IS DISTINCT FROM v_head + 1
           OR v_header[2] IS DISTINCT FROM v_prev THEN
            RAISE EXCEPTION 'the line with header % does not chain onto seq %',
                coalesce(v_header::text, 'unreadable'), v_head
                USING ERRCODE = 'RM003';
        END IF;
        v_head := v_head + 1;
        v_prev := encode(sha256(v_line), 'hex');
        v_digests := v_digests || v_prev;
    END LOOP;
    INSERT INTO remaind_events (project, seq, digest, line)
        SELECT p_project, p_after + t.o, v_digests[t.o], t.l
          FROM unnest(p_lines) WITH ORDINALITY AS t (l, o);
    UPDATE remaind_projects SET head_seq = v_head, head_digest = v_prev WHERE id = p_project;
    PERFORM pg_notify('remaind_events', p_project::text);
    RETURN v_head;
END $$;
