# syntax=docker/dockerfile:1.7
# Dev/CI clamd: Debian's clamav-daemon with the project's test signatures only
# (services/worker-default/clamav: EICAR), no freshclam - nothing is downloaded, it starts in
# well under a second and needs no root. Production uses the official DB (k8s/base/clamd.yaml).
ARG BASE_IMAGE=localhost/ats-debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends clamav-daemon clamdscan \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/lib/clamav/* \
 && printf '%s\n' \
      'Foreground yes' 'PidFile /tmp/clamd.pid' \
      'TemporaryDirectory /tmp' 'DatabaseDirectory /var/lib/clamav' \
      'TCPSocket 3310' 'TCPAddr 0.0.0.0' 'MaxThreads 4' \
      > /etc/clamav/clamd.conf
# The scanner limits + AlertExceedsMax: the one file `just up` and k8s use too.
COPY services/clamd/limits.conf /tmp/limits.conf
RUN cat /tmp/limits.conf >> /etc/clamav/clamd.conf && rm /tmp/limits.conf
COPY --chmod=0444 services/worker-default/clamav/*.ndb /var/lib/clamav/
USER clamav
EXPOSE 3310
HEALTHCHECK --interval=5s --timeout=5s --retries=10 --start-period=30s CMD ["clamdscan", "--ping", "1"]
CMD ["clamd", "--config-file=/etc/clamav/clamd.conf"]
