from django.contrib import admin
from django.urls import include, path, re_path
from django.views.i18n import JavaScriptCatalog

from drf_spectacular.views import SpectacularAPIView

from api.docs import ApiRedocView, ApiSwaggerView
from api.read_cache import public_read_cached
from api.views import api_not_found
from config.metrics import metrics_view
from config.views import healthz
from web.views.home import HomeView

urlpatterns = [
    # Visitors' home page from the shared read cache (api/read_cache.py): it shows games
    # being played, so any progress makes it new; a signed-in person's is never stored.
    path("", public_read_cached(HomeView.as_view()), name="home"),
    path("healthz", healthz, name="healthz"),
    # The table's and the replay's words in the page's language (djangojs catalogues).
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["web"]), name="javascript-catalog"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI and ReDoc from our static files (drf-spectacular-sidecar), never a CDN.
    path("api/docs/", ApiSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/redoc/", ApiRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("api/", include("api.urls")),
    re_path(r"^api/", api_not_found),
    path("", include("web.urls")),
]
