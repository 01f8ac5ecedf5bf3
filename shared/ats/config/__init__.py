"""Settings, environment parsing and the Django composition root (settings, URLs, WSGI)."""
