# syntax=docker/dockerfile:1.7
# Dev/CI stand-in for the managed Postgres: Debian's PostgreSQL 15 (the version the tests and
# `just up` use), built locally - no registry. Runs as uid/gid 70 (compose `user: "70:70"`),
# initialises PGDATA on first start like the official image (POSTGRES_USER/PASSWORD/DB, then
# /docker-entrypoint-initdb.d/*.sh), and needs no capabilities.
ARG BASE_IMAGE=localhost/ats-debian:bookworm
FROM ${BASE_IMAGE}
# The user exists before the package does, so postgresql-common adopts uid 70.
RUN groupadd --system --gid 70 postgres \
 && useradd --system --uid 70 --gid 70 --home-dir /var/lib/postgresql --shell /bin/sh postgres \
 && mkdir -p /etc/postgresql-common \
 && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf \
 && apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && mkdir -p /var/lib/postgresql/data /docker-entrypoint-initdb.d \
 && chown -R 70:70 /var/lib/postgresql && chmod 0700 /var/lib/postgresql/data
COPY --chmod=0555 services/dev-images/postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint
# psql/pg_isready in `podman exec` find the socket in /tmp (the entrypoint puts it there).
ENV PATH=/usr/lib/postgresql/15/bin:$PATH \
    PGHOST=/tmp \
    PGDATA=/var/lib/postgresql/data
USER 70:70
EXPOSE 5432
STOPSIGNAL SIGINT
HEALTHCHECK --interval=5s --timeout=3s --retries=10 --start-period=30s \
  CMD ["pg_isready", "-h", "127.0.0.1", "-U", "ats", "-d", "ats"]
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint"]
