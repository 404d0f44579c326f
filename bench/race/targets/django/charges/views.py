import os
import threading
import time

from django.http import HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt

from .models import Charge


# BENCH_ARRIVALS, when set, names a file that gets one line per request:
# the key, the stage and the Unix time in ns (the diagnosis of issue 27).
_arrivals = os.environ.get("BENCH_ARRIVALS")
_lock = threading.Lock()


def _stamp(key, stage):
    if _arrivals:
        now = time.time_ns()
        with _lock, open(_arrivals, "a") as f:
            f.write(f"{key} {now} {stage}\n")


@csrf_exempt
def claim(request):
    if request.method != "POST":
        return HttpResponse(status=405)
    request.body  # read the payload first, as a view that decodes it does
    key = request.headers.get("Idempotency-Key", "")
    _stamp(key, "body")
    if not key:
        return JsonResponse({"error": "missing Idempotency-Key"}, status=400)
    charge, created = Charge.objects.get_or_create(idempotency_key=key)
    _stamp(key, "done")
    if created:
        return JsonResponse({"status": "charged", "id": charge.id}, status=201)
    return JsonResponse({"error": "key already used"}, status=409)


def effects(request):
    # The bench's count: how many charges the key made.
    n = Charge.objects.filter(idempotency_key=request.GET.get("key", "")).count()
    return HttpResponse(f"{n}\n", content_type="text/plain")
