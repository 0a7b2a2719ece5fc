"""The web pages' URLs, included at the site root by league/urls.py."""

from django.urls import path

from web.views import accounts, samples

app_name = "web"

urlpatterns = [
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", accounts.SiteLoginView.as_view(), name="login"),
    path("accounts/logout/", accounts.SiteLogoutView.as_view(), name="logout"),
    path("join/", accounts.join_club, name="join-club"),
    path("join/<str:code>/", accounts.join_club, name="join-club-code"),
    path("samples/", samples.sample_index, name="samples"),
    path("samples/replay/", samples.sample_replay, name="sample-replay"),
    path("samples/record.json", samples.sample_record_json, name="sample-record"),
    path("samples/timeline.json", samples.sample_timeline_json, name="sample-timeline"),
    path("samples/table/", samples.sample_table, name="sample-table"),
    path("samples/table/view.json", samples.sample_table_view, name="sample-table-view"),
    path("samples/table/actions.json", samples.sample_table_actions, name="sample-table-actions"),
]
