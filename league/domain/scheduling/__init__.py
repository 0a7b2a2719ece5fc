"""Pure scheduling for King League: plain data in, plain data out, a seed for any randomness.

No database, no clock, no Django. Services call these functions and store what they return.

Formats (docs/scheduling.md has the rules for organisers):

* :func:`round_robin` - individual games at tables of four (Kingen, King, Kung och Adel);
* :func:`rotating_partners` - Priffe with rotating partners (whist designs, the six-rubber cycle,
  the local search);
* :func:`swiss_round` - tables of four by standings, avoiding rematches;
* :func:`plan_rounds` / :func:`plan_round` - the local search itself (any N, any attendance,
  continuing a history), for a number of rounds or just the next one;
* :func:`small_tables_round` - the next round at tables of three or five (Kingen for three or
  five players), meetings kept even;
* :func:`whist_design` - the whist tournaments Wh(v) for v ≡ 0, 1 (mod 4), 4 <= v <= 40 and more.
"""

from league.domain.scheduling.balance import Balance, balance_of
from league.domain.scheduling.local_search import SearchResult, Weights, plan_round, plan_rounds
from league.domain.scheduling.model import (
    SEATS,
    TRAKARL,
    Fill,
    Mode,
    Occupant,
    PlayerId,
    Round,
    Schedule,
    Table,
    Trakarl,
)
from league.domain.scheduling.plan import Plan
from league.domain.scheduling.rotating_partners import rotating_partners
from league.domain.scheduling.round_robin import round_robin
from league.domain.scheduling.small_tables import small_tables_round
from league.domain.scheduling.swiss import swiss_round
from league.domain.scheduling.whist import WhistDesign, whist_design, whist_sizes

__all__ = [
    "SEATS",
    "TRAKARL",
    "Balance",
    "Fill",
    "Mode",
    "Occupant",
    "Plan",
    "PlayerId",
    "Round",
    "Schedule",
    "SearchResult",
    "Table",
    "Trakarl",
    "Weights",
    "WhistDesign",
    "balance_of",
    "plan_round",
    "plan_rounds",
    "rotating_partners",
    "round_robin",
    "small_tables_round",
    "swiss_round",
    "whist_design",
    "whist_sizes",
]
