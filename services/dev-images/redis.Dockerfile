# syntax=docker/dockerfile:1.7
# Dev/CI Redis (cache, sessions, rate limits only - never a broker, ADR 0004): Debian's
# redis-server 7.0, built locally. Compose passes the whole command line.
ARG BASE_IMAGE=localhost/ats-debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends redis-server \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
USER 65532:65532
WORKDIR /data
EXPOSE 6379
HEALTHCHECK --interval=5s --timeout=3s --retries=10 CMD ["redis-cli", "ping"]
CMD ["redis-server", "--save", "", "--appendonly", "no"]
