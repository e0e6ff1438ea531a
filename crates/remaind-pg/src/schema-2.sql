-- Migration 2: remaind_events loses its foreign key to remaind_projects. The key checked
-- every inserted line with a query of its own and a share lock on the project's row, which
-- remaind_append already holds exclusively: it cost half the append's time (docs/fleet.md).
-- The rows stay consistent without it: remaind_append, the one writer of remaind_events,
-- locks the project's row before it inserts and refuses a missing project, and projects are
-- never deleted.
ALTER TABLE remaind_events DROP CONSTRAINT IF EXISTS remaind_events_project_fkey;
