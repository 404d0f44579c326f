from django.db import models


class Charge(models.Model):
    account_id = models.BigIntegerField()
    kind = models.CharField(max_length=32)
    address = models.CharField(max_length=255)
    namespace = models.CharField(max_length=64, null=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["account_id", "kind", "address", "namespace"],
                name="charge_unique_claim",
            ),
        ]
