"""The rules pages: /rules/ lists the games, /rules/{family}/ explains one (web.rules_pages)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from web.rules_pages import rules_index, rules_page, rules_pages


@require_GET
def rules_list(request: HttpRequest) -> HttpResponse:
    return render(request, "web/rules_index.html", {"intro": rules_index(), "pages": rules_pages()})


@require_GET
def rules_detail(request: HttpRequest, family: str) -> HttpResponse:
    page = rules_page(family)
    if page is None:
        raise Http404(_("No rules page for %(repr)s.") % {"repr": repr(family)})
    return render(request, "web/rules.html", {"page": page, "pages": rules_pages()})
