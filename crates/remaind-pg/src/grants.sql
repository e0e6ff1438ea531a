GRANT USAGE ON SCHEMA public TO web_app_agents;
GRANT SELECT ON remaind_migrations TO web_app_agents;
GRANT SELECT, INSERT, UPDATE ON remaind_projects, remaind_files TO web_app_agents;
GRANT SELECT, INSERT ON remaind_events, remaind_artifacts, remaind_search TO web_app_agents;
GRANT EXECUTE ON FUNCTION remaind_append(bigint, bigint, bytea[]) TO web_app_agents;
GRANT EXECUTE ON FUNCTION remaind_search_row(bytea) TO web_app_agents;
