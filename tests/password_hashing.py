"""Quick password hashing for the test process: Django's PBKDF2 at 1,000 iterations.

Django's default (1,000,000 iterations) costs about 0.4 s of CPU a password on this
machine kind, on purpose; the suite makes and checks passwords hundreds of times and needs
none of that strength (Django's docs suggest a faster hasher in tests). The algorithm's name
stays ``pbkdf2_sha256`` and the iterations are written into each hash, so a server the
tests start (production's hashers) checks these passwords too, and upgrades them on a
sign-in as it would any old hash.
"""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    iterations = 1_000
