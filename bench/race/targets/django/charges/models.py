from django.db import models


class Charge(models.Model):
    # No unique constraint and no index on the key: get_or_create is the
    # only guard, a SELECT and then an INSERT.
    idempotency_key = models.CharField(max_length=200)
    created = models.DateTimeField(auto_now_add=True)
