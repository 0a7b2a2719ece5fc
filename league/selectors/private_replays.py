"""A person's private replays, read for their owner alone: anyone else is told there is no
such replay (404), so a replay's existence is private too."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from league.errors import NotFoundError
from league.models import PrivateReplay


def private_replay_list(*, user: Account | AnonymousUser) -> QuerySet[PrivateReplay]:
    if not user.is_authenticated:
        return PrivateReplay.objects.none()
    return PrivateReplay.objects.filter(owner_id=user.pk).defer("record")


def private_replay_get(*, replay_id: int, user: Account | AnonymousUser) -> PrivateReplay:
    """The replay, if ``user`` owns it; NotFoundError otherwise."""
    if user.is_authenticated:
        replay = PrivateReplay.objects.filter(pk=replay_id, owner_id=user.pk).first()
        if replay is not None:
            return replay
    raise NotFoundError(_("No such replay among yours."))
