-- Migration 4: the append path is the only way in (docs/fleet.md, "Setting up the database").
-- Every write an agent makes goes through a function that runs as the schema's owner
-- (SECURITY DEFINER, its search_path pinned to this schema with pg_temp last), so an agent's
-- role needs SELECT on the tables and EXECUTE on these functions, and no INSERT, UPDATE or
-- DELETE on any table: a row past the head, a moved head or an edited line cannot be written
-- by a role that only appends.

-- The append, as in migration 1, run as the owner, and refusing a project holding rows past
-- its recorded head (written around this function): the next seq would collide with them.
CREATE OR REPLACE FUNCTION remaind_append(p_project bigint, p_after bigint, p_lines bytea[])
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    v_head    bigint;
    v_prev    text;
    v_bad     bigint;
    v_stray   bigint;
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
    SELECT min(seq) INTO v_stray FROM remaind_events WHERE project = p_project AND seq > v_head;
    IF v_stray IS NOT NULL THEN
        RAISE EXCEPTION 'project % holds a row at seq % past its recorded head (seq %)',
            p_project, v_stray, v_head USING ERRCODE = 'RM004';
    END IF;
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

-- The project's row lock, for a writer that must see the head before it builds its lines
-- (held until its transaction ends). NULLs when there is no such project.
CREATE FUNCTION remaind_lock(p_project bigint, OUT head_seq bigint, OUT head_digest text)
LANGUAGE sql SECURITY DEFINER AS $$
    SELECT p.head_seq, p.head_digest FROM remaind_projects p WHERE p.id = p_project FOR UPDATE
$$;

-- Create a project with an empty chain starting at `p_genesis`, or find it: its id, and
-- whether this call created it.
CREATE FUNCTION remaind_create_project(p_name text, p_genesis text,
                                       OUT p_id bigint, OUT p_created boolean)
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    IF p_genesis !~ '^[0-9a-f]{64}$' THEN
        RAISE EXCEPTION 'a genesis value is 64 lowercase hex digits' USING ERRCODE = 'RM005';
    END IF;
    INSERT INTO remaind_projects (name, head_digest) VALUES (p_name, p_genesis)
        ON CONFLICT (name) DO NOTHING RETURNING id INTO p_id;
    p_created := p_id IS NOT NULL;
    IF NOT p_created THEN
        SELECT p.id INTO p_id FROM remaind_projects p WHERE p.name = p_name;
    END IF;
END $$;

-- Store an artifact in chunks (a no-op when it is there), refused unless its bytes hash to
-- its name: no role can plant other bytes under a name a later line cites.
CREATE FUNCTION remaind_put_artifact(p_project bigint, p_sha256 text, p_chunks bytea[])
RETURNS void LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    v_count integer := coalesce(array_length(p_chunks, 1), 0);
BEGIN
    IF NOT EXISTS (SELECT 1 FROM remaind_projects WHERE id = p_project) THEN
        RAISE EXCEPTION 'no project with id %', p_project USING ERRCODE = 'RM002';
    END IF;
    IF v_count = 0 OR p_sha256 IS DISTINCT FROM encode(sha256(
           (SELECT string_agg(c, ''::bytea ORDER BY o)
              FROM unnest(p_chunks) WITH ORDINALITY AS t (c, o))), 'hex') THEN
        RAISE EXCEPTION 'the artifact''s bytes do not hash to its name %', p_sha256
            USING ERRCODE = 'RM005';
    END IF;
    INSERT INTO remaind_artifacts (project, sha256, chunk, chunks, bytes)
        SELECT p_project, p_sha256, (o - 1)::integer, v_count, c
          FROM unnest(p_chunks) WITH ORDINALITY AS t (c, o)
        ON CONFLICT DO NOTHING;
END $$;

-- Store one of the project's files (its rules and key, a derived file), replacing it.
CREATE FUNCTION remaind_put_file(p_project bigint, p_path text, p_bytes bytea)
RETURNS void LANGUAGE sql SECURITY DEFINER AS $$
    INSERT INTO remaind_files (project, path, sha256, bytes)
        VALUES (p_project, p_path, encode(sha256(p_bytes), 'hex'), p_bytes)
        ON CONFLICT (project, path) DO UPDATE SET sha256 = excluded.sha256, bytes = excluded.bytes
$$;

-- Index up to `p_limit` more events for search (migration 3), from the last indexed seq on,
-- never past the recorded head; returns how many.
CREATE FUNCTION remaind_index_search(p_project bigint, p_limit bigint)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    v_count bigint;
BEGIN
    INSERT INTO remaind_search (project, seq, kind, importance, body, doc)
        SELECT e.project, e.seq, r.kind, r.importance, r.body, r.doc
          FROM remaind_events e, LATERAL remaind_search_row(e.line) r
         WHERE e.project = p_project
           AND e.seq > (SELECT coalesce(max(seq), 0) FROM remaind_search
                         WHERE project = p_project)
           AND e.seq <= (SELECT head_seq FROM remaind_projects WHERE id = p_project)
         ORDER BY e.seq LIMIT p_limit
        ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS v_count = ROW_COUNT;
    RETURN v_count;
END $$;

DO $$
DECLARE
    v_schema text := current_schema();
    v_owner  regrole := (SELECT relowner::regrole FROM pg_class
                          WHERE oid = 'remaind_events'::regclass);
    v_fn     text;
    v_role   regrole;
    r        record;
    v_fns    text[] := ARRAY[
        'remaind_append(bigint, bigint, bytea[])',
        'remaind_lock(bigint)',
        'remaind_create_project(text, text)',
        'remaind_put_artifact(bigint, text, bytea[])',
        'remaind_put_file(bigint, text, bytea)',
        'remaind_index_search(bigint, bigint)'];
    v_tables regclass[] := ARRAY['remaind_migrations', 'remaind_projects', 'remaind_events',
        'remaind_artifacts', 'remaind_files', 'remaind_search']::regclass[];
BEGIN
    FOREACH v_fn IN ARRAY v_fns LOOP
        -- Owned by the tables' owner (when a superuser migrates for it), with no search_path
        -- a caller could bend, and executable only by the roles granted it.
        IF v_owner::oid <> (SELECT oid FROM pg_roles WHERE rolname = current_user) THEN
            EXECUTE format('ALTER FUNCTION %s OWNER TO %s', v_fn, v_owner);
        END IF;
        EXECUTE format('ALTER FUNCTION %s SET search_path = pg_catalog, %I, pg_temp',
                       v_fn, v_schema);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', v_fn);
    END LOOP;
    -- A role that could insert lines directly (the grants before this migration) may now
    -- call the functions that replace its writes...
    FOR v_role IN
        SELECT DISTINCT a.grantee::regrole
          FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a
         WHERE c.oid = 'remaind_events'::regclass AND a.privilege_type = 'INSERT'
           AND a.grantee <> c.relowner AND a.grantee <> 0
    LOOP
        FOREACH v_fn IN ARRAY v_fns LOOP
            EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', v_fn, v_role);
        END LOOP;
    END LOOP;
    -- ...and no role but the owner writes a table any other way.
    FOR r IN
        SELECT DISTINCT c.oid::regclass AS tbl, a.grantee
          FROM pg_class c CROSS JOIN LATERAL aclexplode(c.relacl) a
         WHERE c.oid = ANY (v_tables)
           AND a.grantee <> c.relowner
           AND a.privilege_type IN ('INSERT', 'UPDATE', 'DELETE', 'TRUNCATE')
    LOOP
        EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON %s FROM %s', r.tbl,
                       CASE WHEN r.grantee = 0 THEN 'PUBLIC' ELSE r.grantee::regrole::text END);
    END LOOP;
END $$;
