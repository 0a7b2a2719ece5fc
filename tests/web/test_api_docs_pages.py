"""/api/docs/ and /api/redoc/ as HTML: every file they name is one of ours, under a
Content-Security-Policy that allows nothing else (the browser test,
test_browser_api_docs.py, checks what a browser then requests)."""

from __future__ import annotations

import re

from django.contrib.staticfiles import finders
from django.test import Client

import pytest

from api.docs import API_DOCS_CONTENT_SECURITY_POLICY

pytestmark = pytest.mark.django_db

ATTRIBUTE_URLS = re.compile(r"""(?:src|href|spec-url)=["']([^"']+)["']""")


@pytest.mark.parametrize("page", ["/api/docs/", "/api/redoc/"])
def test_a_docs_page_names_only_files_of_this_server(client: Client, page: str) -> None:
    response = client.get(page)
    assert response.status_code == 200
    assert response["Content-Security-Policy"] == API_DOCS_CONTENT_SECURITY_POLICY
    html = response.content.decode()
    assert "https://" not in html
    assert "http://" not in html
    urls = ATTRIBUTE_URLS.findall(html)
    assert urls
    for url in urls:
        assert url.startswith("/"), url
        if url.startswith("/static/"):
            assert finders.find(url.removeprefix("/static/").split("?")[0]), url


def test_swagger_ui_starts_from_a_script_file_not_inline(client: Client) -> None:
    html = client.get("/api/docs/").content.decode()
    assert "<script>" not in html  # the policy allows no inline script
    script = client.get("/api/docs/?script=")
    assert script.status_code == 200
    assert script["Content-Type"].startswith("application/javascript")
    assert "/api/schema/" in script.content.decode()


def test_the_policy_allows_only_this_server() -> None:
    for directive in API_DOCS_CONTENT_SECURITY_POLICY.split(";"):
        name, *sources = directive.split()
        assert all(s.startswith("'") or s in ("data:", "blob:") for s in sources), name
