"""worker-untrusted: the parse task, its runner and its two database calls - nothing else.

This package is the whole of what the untrusted worker runs besides procrastinate and
`ats.jobs`. It has its own Django settings (`ats.parse_worker.settings`: no trusted app
installed, no storage, mail, AI or admin secret read) and import-linter forbids it to
import intake services, storage, scanning, audit, candidates, iam, channels, mail or an
HTTP/Azure client (pyproject.toml). `tests/parse_worker` compares what the running
worker has loaded with the reviewed list in services/worker-untrusted/policy/modules.txt.
"""
