//! The privileges a role needs, and what to run when it lacks one.

/// Every grant an agent's role needs on a migrated schema to append, follow, compact, pull
/// and search (and join a project with `init --store`), for the role [`AGENT_ROLE`]: one
/// statement a line, run as the schema's owner. Reads, and the functions every write goes
/// through (migration 4): no INSERT, UPDATE or DELETE on any table. docs/fleet.md quotes it verbatim and its
/// test runs the doc's copy; a privilege error quotes the line that grants what was missing.
pub const AGENT_GRANTS: &str = include_str!("grants.sql");

/// The role [`AGENT_GRANTS`] names.
pub const AGENT_ROLE: &str = "web_app_agents";

/// `name` as an SQL identifier: bare when it is a plain lowercase one, else double-quoted.
pub(crate) fn ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_owned()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// The lines of [`AGENT_GRANTS`] that name `object`, for `role`.
fn grants_for(object: &str, role: &str) -> Vec<String> {
    AGENT_GRANTS
        .lines()
        .filter(|line| {
            line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|word| word == object)
        })
        .map(|line| line.replace(AGENT_ROLE, &ident(role)))
        .collect()
}

/// What to run when `role` lacked a privilege while doing `action` (the server's message in
/// `source` names the object).
pub(crate) fn privilege_hint(role: &str, action: &str, source: &postgres::Error) -> String {
    let role = if role.is_empty() { "ROLE" } else { role };
    let message = source.as_db_error().map_or("", |e| e.message());
    let object = |kind: &str| {
        message
            .strip_prefix(&format!("permission denied for {kind} "))
            .map(|o| o.trim_matches('"').to_owned())
    };
    let listed =
        "docs/fleet.md (\"Setting up the database\") lists every grant an agent's role needs";
    if source.code() == Some(&postgres::error::SqlState::INVALID_SCHEMA_NAME) {
        // "no schema has been selected to create in": the role may use no schema at all.
        return format!(
            "it may use no schema: as the database's owner run `GRANT USAGE ON SCHEMA public TO {};`",
            ident(role)
        );
    }
    if let Some(schema) = object("schema") {
        if action.contains("migrat") {
            return format!(
                "the schema is created and migrated by a role that may create tables in schema \
                 {schema}: run this once as the database's owner (`CREATE DATABASE … OWNER …`), \
                 or have a superuser run `GRANT CREATE ON SCHEMA {} TO {};`",
                ident(&schema),
                ident(role)
            );
        }
        return format!(
            "as the database's owner run `GRANT USAGE ON SCHEMA {} TO {};`",
            ident(&schema),
            ident(role)
        );
    }
    if let Some(database) = object("database") {
        return format!(
            "as the database's owner run `GRANT CONNECT ON DATABASE {} TO {};`",
            ident(&database),
            ident(role)
        );
    }
    let named = object("table")
        .or_else(|| object("function"))
        .or_else(|| object("sequence"))
        .map(|o| grants_for(&o, role))
        .unwrap_or_default();
    if named.is_empty() {
        return format!("as the schema's owner grant it; {listed}");
    }
    format!("as the schema's owner run `{}`; {listed}", named.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted_unless_plain() {
        assert_eq!(ident("web_app_agents"), "web_app_agents");
        assert_eq!(ident("Web-App"), "\"Web-App\"");
        assert_eq!(ident("a\"b"), "\"a\"\"b\"");
    }

    #[test]
    fn every_table_of_the_schema_has_a_grant() {
        for table in [
            "remaind_migrations",
            "remaind_projects",
            "remaind_events",
            "remaind_artifacts",
            "remaind_files",
            "remaind_search",
            "remaind_append",
            "remaind_lock",
            "remaind_create_project",
            "remaind_put_artifact",
            "remaind_put_file",
            "remaind_index_search",
        ] {
            let lines = grants_for(table, "agents");
            assert_eq!(lines.len(), 1, "{table}");
            assert!(lines[0].ends_with(" TO agents;"), "{lines:?}");
        }
    }
}
