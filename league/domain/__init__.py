"""The league's pure domain: scheduling (who sits where each round), the mathematics of
standings and ratings, partner rotation. Plain data in, plain data out: no Django, no
database, no clock (tests/test_layers.py checks the imports), so all of it is tested and
benchmarked without a server. The services (league/services/) feed it stored rows and
store what it returns."""
