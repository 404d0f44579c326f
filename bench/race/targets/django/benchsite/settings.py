# Settings of the bench's Django project: PostgreSQL from DATABASE_URL, one
# app, no middleware (so no CSRF check on the POST), Django's defaults
# otherwise (CONN_MAX_AGE 0: a database connection per request).
import os
import urllib.parse

_db = urllib.parse.urlparse(os.environ["DATABASE_URL"])

SECRET_KEY = "bench-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = ["charges"]
MIDDLEWARE = []
ROOT_URLCONF = "benchsite.urls"
WSGI_APPLICATION = "benchsite.wsgi.application"
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": _db.path.lstrip("/"),
        "USER": _db.username or "",
        "PASSWORD": _db.password or "",
        "HOST": _db.hostname or "",
        "PORT": str(_db.port or ""),
    }
}
LOGGING = {"version": 1, "disable_existing_loggers": True}
