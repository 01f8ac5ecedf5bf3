"""Local stand-ins for external services (clamd, Azurite, ...) used by tests and `just up`.

Development and test tooling only: nothing in a production code path imports this.
"""
