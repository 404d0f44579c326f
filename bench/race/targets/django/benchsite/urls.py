from django.urls import path

from charges import views

urlpatterns = [
    path("claims", views.claim),
    path("effects", views.effects),
]
