from django.contrib import admin
from django.urls import include, path, re_path

from drf_spectacular.views import SpectacularAPIView

from league.api.docs import ApiRedocView, ApiSwaggerView
from league.api.views import api_not_found
from league.views import HomeView, healthz

urlpatterns = [
    path("", HomeView.as_view(), name="home"),
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI and ReDoc from our static files (drf-spectacular-sidecar), never a CDN.
    path("api/docs/", ApiSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", ApiRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("api/", include("league.api.urls")),
    re_path(r"^api/", api_not_found),
    path("", include("web.urls")),
]
