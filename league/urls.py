from django.contrib import admin
from django.urls import include, path

from drf_spectacular.views import SpectacularAPIView

from league.views import HomeView, healthz

urlpatterns = [
    path("", HomeView.as_view(), name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("", include("web.urls")),
]
