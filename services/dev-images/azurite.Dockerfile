# syntax=docker/dockerfile:1.7
# Dev/CI stand-in for Azure Blob Storage: Azurite from npm (package-lock.json), on Debian's
# nodejs, built locally - no registry. npm runs only in the discarded build stage.
ARG BASE_IMAGE=localhost/ats-debian:bookworm
# Build-time only CAs (see services/base.Dockerfile); empty unless --build-context extra-ca=DIR.
FROM scratch AS extra-ca

FROM ${BASE_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs npm ca-certificates \
 && rm -rf /var/lib/apt/lists/*
COPY --from=extra-ca . /usr/local/share/ca-certificates/
RUN update-ca-certificates >/dev/null
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
WORKDIR /opt/azurite
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=optional --no-audit --no-fund --loglevel=error \
 && chmod -R a+rX node_modules

FROM ${BASE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends nodejs \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
 && mkdir -p /data && chown 65532:65532 /data
COPY --from=build /opt/azurite/node_modules /opt/azurite/node_modules
ENV PATH=/opt/azurite/node_modules/.bin:$PATH
USER 65532:65532
EXPOSE 10000
# No curl/wget: open a TCP connection with node itself.
HEALTHCHECK --interval=5s --timeout=3s --retries=10 \
  CMD ["node", "-e", "require('net').connect(10000,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))"]
CMD ["azurite-blob", "--blobHost", "0.0.0.0", "--blobPort", "10000", "--location", "/data", "--disableTelemetry", "--skipApiVersionCheck"]
