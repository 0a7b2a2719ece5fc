"""Clubs: the list, a club's page (members, leagues, invitations), creating a club, and a
person's own invitations to accept or decline (nobody becomes a member without agreeing)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from league.errors import InvalidInputError, LeagueError, NotFoundError
from league.models import Role, TournamentFormat
from league.selectors.clubs import (
    club_get,
    club_list,
    club_member_list,
    club_role_of,
    invitations_pending_for,
)
from league.selectors.profiles import user_find
from league.selectors.tournaments import tournament_list
from league.services.clubs import (
    club_create,
    invitation_accept,
    invitation_create,
    invitation_decline,
)
from web.forms import ClubForm, InvitationCreateForm
from web.selectors import can_organise_club, clubs_of


@require_http_methods(["GET", "POST"])
def club_index(request: HttpRequest) -> HttpResponse:
    form = ClubForm(request.POST or None)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('web:login')}?next={request.path}")
        if form.is_valid():
            try:
                club = club_create(
                    user=request.user,
                    name=form.cleaned_data["name"],
                    description=form.cleaned_data["description"],
                )
            except LeagueError as exc:
                form.add_error("name", exc.detail)
            else:
                messages.success(
                    request, _("%(name)s is open; you are its owner.") % {"name": club.name}
                )
                return redirect("web:club", club_id=club.pk)
    context = {
        "clubs": club_list(),
        "memberships": clubs_of(user=request.user),
        "invitations": invitations_pending_for(user=request.user),
        "form": form,
    }
    return render(request, "web/clubs.html", context)


def club_detail(request: HttpRequest, club_id: int) -> HttpResponse:
    try:
        club = club_get(club_id=club_id)
    except NotFoundError:
        raise Http404(_("No such club.")) from None
    leagues = tournament_list(club_id=club.pk, formats_left_out=[TournamentFormat.TABLE])
    context = {
        "club": club,
        "role": club_role_of(user=request.user, club=club),
        "organiser": can_organise_club(user=request.user, club=club),
        "members": club_member_list(club=club, by_role=True),
        "leagues": leagues,
        "invitation_form": InvitationCreateForm(),
    }
    return render(request, "web/club.html", context)


@login_required
@require_POST
def club_invite(request: HttpRequest, club_id: int) -> HttpResponse:
    try:
        club = club_get(club_id=club_id)
    except NotFoundError:
        raise Http404(_("No such club.")) from None
    form = InvitationCreateForm(request.POST)
    if form.is_valid():
        username = form.cleaned_data["username"].strip()
        invitee = user_find(username=username) if username else None
        try:
            if username and invitee is None:
                raise InvalidInputError(f"there is no person named {username!r}")
            invitation = invitation_create(
                actor=request.user, club=club, role=form.cleaned_data["role"], invitee=invitee
            )
        except LeagueError as exc:
            messages.error(request, _sentence(exc.detail))
        else:
            if invitee is not None:
                messages.success(
                    request,
                    _(
                        "%(name)s is invited (role: %(role)s): they become a member when they "
                        "accept it (under Join a club), until %(expires)s."
                    )
                    % {
                        "name": invitee.get_username(),
                        "role": Role(invitation.role).label,
                        "expires": f"{invitation.expires_at:%Y-%m-%d}",
                    },
                )
            else:
                link = request.build_absolute_uri(
                    reverse("web:join-club-code", args=[invitation.code])
                )
                messages.success(
                    request,
                    _(
                        "Invitation (role: %(role)s): code %(code)s - or send the link "
                        "%(link)s (one use, until %(expires)s)."
                    )
                    % {
                        "role": Role(invitation.role).label,
                        "code": invitation.code,
                        "link": link,
                        "expires": f"{invitation.expires_at:%Y-%m-%d}",
                    },
                )
    return redirect("web:club", club_id=club.pk)


def _sentence(message: str) -> str:
    return message[:1].upper() + message[1:] + "."


@login_required
@require_GET
def invitation_list(request: HttpRequest) -> HttpResponse:
    """The personal invitations waiting for the person's answer."""
    invitations = invitations_pending_for(user=request.user)
    return render(request, "web/invitations.html", {"invitations": invitations})


@login_required
@require_POST
def invitation_answer(request: HttpRequest, code: str, answer: str) -> HttpResponse:
    """Accept or decline a personal invitation: only its invitee may."""
    if answer not in ("accept", "decline"):
        raise Http404(_("No such answer."))
    try:
        if answer == "accept":
            membership = invitation_accept(user=request.user, code=code)
        else:
            invitation_decline(user=request.user, code=code)
    except LeagueError as exc:
        messages.error(request, _sentence(exc.detail))
        return redirect("web:invitations")
    if answer == "decline":
        messages.success(request, _("Invitation declined."))
        return redirect("web:invitations")
    messages.success(request, _("You joined %(name)s.") % {"name": membership.club.name})
    return redirect("web:club", club_id=membership.club_id)
