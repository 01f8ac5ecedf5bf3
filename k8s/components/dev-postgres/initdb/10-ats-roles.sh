#!/bin/sh
# Dev-only Postgres bootstrap, run once by the postgres image's entrypoint when the data
# directory is first initialised (compose mounts this directory; the k8s dev-postgres
# component ships it as a ConfigMap). Production: a DBA runs the same statements on the
# managed server (docs/deploy.md).
#
# Creates the least-privilege login role for worker-untrusted. It gets NO table or function
# privileges here: the migrations grant exactly what procrastinate needs for queue `parse`
# once the tables exist (see shared/notes/measured-facts.md, "A least-privilege role").
set -eu
: "${ATS_PARSE_PASSWORD:?ATS_PARSE_PASSWORD must be set}"

psql --no-psqlrc -v ON_ERROR_STOP=1 \
  --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v db="$POSTGRES_DB" -v app_role="$POSTGRES_USER" -v parse_password="$ATS_PARSE_PASSWORD" <<'SQL'
-- NOINHERIT + a connection cap: the parse worker needs concurrency 2 + 1 LISTEN + up to one
-- Django connection per executor thread, per pod, two pods at most; 16 ([db_role] in
-- services/worker-untrusted/policy/limits.toml, which the migrations apply) bounds what
-- a compromised worker can hold.
CREATE ROLE ats_parse LOGIN NOINHERIT CONNECTION LIMIT 16 PASSWORD :'parse_password';

-- PUBLIC may create temp tables by default; a pg_temp object can hijack unqualified names
-- in SECURITY DEFINER functions. Grant CONNECT explicitly, then take TEMP away from PUBLIC.
GRANT CONNECT ON DATABASE :"db" TO ats_parse;
REVOKE TEMPORARY ON DATABASE :"db" FROM PUBLIC;

-- PUBLIC gets EXECUTE on every new function by default; functions created by the app
-- role (procrastinate's included) must be granted to ats_parse one by one instead.
ALTER DEFAULT PRIVILEGES FOR ROLE :"app_role" REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;

-- Bound a stuck or hostile session. Idle-in-transaction stays above the 90 s parse wall
-- timeout so a task that keeps a transaction open across one parse is not cut off.
ALTER ROLE ats_parse SET statement_timeout = '30s';
ALTER ROLE ats_parse SET lock_timeout = '10s';
ALTER ROLE ats_parse SET idle_in_transaction_session_timeout = '120s';
SQL
