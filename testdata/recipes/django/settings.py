# The smallest Django project with the hole: a model whose UniqueConstraint
# has a nullable field. The database comes from DATABASE_URL's parts.
import os
from urllib.parse import urlparse

url = urlparse(os.environ["DATABASE_URL"])
SECRET_KEY = "recipe-test"
INSTALLED_APPS = ["payments"]
DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": url.path.lstrip("/"),
        "USER": url.username or "",
        "PASSWORD": url.password or "",
        "HOST": url.hostname or "",
        "PORT": str(url.port or ""),
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
