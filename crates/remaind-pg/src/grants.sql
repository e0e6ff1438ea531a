GRANT USAGE ON SCHEMA public TO web_app_agents;
GRANT SELECT ON remaind_migrations TO web_app_agents;
GRANT SELECT ON remaind_projects, remaind_events, remaind_artifacts, remaind_files, remaind_search TO web_app_agents;
GRANT EXECUTE ON FUNCTION remaind_append(bigint, bigint, bytea[]) TO web_app_agents;
GRANT EXECUTE ON FUNCTION remaind_lock(bigint) TO web_app_agents;
GRANT EXECUTE ON FUNCTION remaind_create_project(text, text) TO web_app_agents;
GRANT EXECUTE ON FUNCTION remaind_put_artifact(bigint, text, bytea[]) TO web_app_agents;
GRANT EXECUTE ON FUNCTION remaind_put_file(bigint, text, bytea) TO web_app_agents;
GRANT EXECUTE ON FUNCTION remaind_index_search(bigint, bigint) TO web_app_agents;
