import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ats.config.settings")
os.environ.setdefault("ATS_DEPLOYABLE", "web")
application = get_wsgi_application()
