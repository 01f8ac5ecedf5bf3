-- Read-only role for KEDA's PostgreSQL scaler. Run once as the database owner AFTER the first
-- `ats migrate` (procrastinate_jobs must exist), and again if procrastinate ever recreates
-- the table. Column privileges only: the scaler counts rows by queue and status; it cannot
-- read job arguments, other tables, or write anything.
--   psql "$OWNER_URL" -v keda_password="'...'" -f k8s/components/keda/keda-role.sql
CREATE ROLE ats_keda LOGIN NOINHERIT CONNECTION LIMIT 4 PASSWORD :keda_password;
GRANT CONNECT ON DATABASE ats TO ats_keda;
GRANT USAGE ON SCHEMA public TO ats_keda;
GRANT SELECT (queue_name, status, scheduled_at) ON procrastinate_jobs TO ats_keda;
ALTER ROLE ats_keda SET statement_timeout = '5s';
ALTER ROLE ats_keda SET default_transaction_read_only = on;
