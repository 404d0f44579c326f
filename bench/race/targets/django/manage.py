#!/usr/bin/env python3
# The Django project of the real-server bench (go run ./bench/race -tables
# real): what `django-admin startproject` would give, cut down to one app.
# The bench runs it with Debian's python3-django as `manage.py migrate
# --run-syncdb` and then `manage.py runserver --noreload`, or under Debian's
# gunicorn (`gunicorn -w 3 benchsite.wsgi`). DATABASE_URL names the
# PostgreSQL database, which the bench creates and drops.
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "benchsite.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
