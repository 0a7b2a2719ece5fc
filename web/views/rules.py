"""The rules pages: /rules/ lists the games, /rules/{family}/ explains one (web.rules_pages),
in the request's language where the page has a version in it."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from web.rules_pages import rules_index, rules_page, rules_pages


@require_GET
def rules_list(request: HttpRequest) -> HttpResponse:
    language = get_language()
    context = {"intro": rules_index(language), "pages": rules_pages(language)}
    return render(request, "web/rules_index.html", context)


@require_GET
def rules_detail(request: HttpRequest, family: str) -> HttpResponse:
    language = get_language()
    page = rules_page(family, language)
    if page is None:
        raise Http404(_("No rules page for %(repr)s.") % {"repr": repr(family)})
    return render(request, "web/rules.html", {"page": page, "pages": rules_pages(language)})
