# The image for web, worker and beat (docker-compose.yml picks the command).
# Static files are collected into the image (STATIC_ROOT) and WhiteNoise serves them.

# The compiled double-dummy solver (engine/_dds.c) is built in a stage of its own, with a C
# compiler the final image does not carry, and copied beside the engine's modules; the
# final stage checks that the engine imports it (engine.double_dummy.compiled_available).
FROM python:3.11-slim-bookworm AS solver
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements/app.lock requirements/app.lock
RUN pip install --no-cache-dir --require-hashes --no-deps -r requirements/app.lock
COPY setup.py pyproject.toml README.md ./
COPY engine engine
RUN python setup.py --quiet build_ext --inplace \
    && python -c "import engine.double_dummy as d; assert d.compiled_available()"

FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VAR_DIR=/var/lib/king-league \
    STATIC_ROOT=/app/static

WORKDIR /app

# Dependencies first, so that a code change does not reinstall them: exactly the locked
# versions (requirements/app.lock, each file checked against its sha256; scripts/lock-update
# writes it), then the project itself without its dependencies (and with the locked
# setuptools, so the build fetches nothing).
COPY requirements/app.lock requirements/app.lock
RUN pip install --require-hashes --no-deps -r requirements/app.lock

# gettext's msgfmt compiles the translation catalogues (locale/*/LC_MESSAGES/*.po).
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

COPY . .
COPY --from=solver /app/engine/_dds.*.so engine/
RUN pip install --no-deps --no-build-isolation -e . \
    && python -c "import engine.double_dummy as d; assert d.compiled_available(), d.compiled_unavailable_reason()" \
    && useradd --system --home-dir "${VAR_DIR}" --shell /usr/sbin/nologin league \
    && mkdir -p "${VAR_DIR}" \
    && SECRET_KEY=collectstatic-only VAR_DIR=/tmp/build-state \
        python manage.py collectstatic --noinput --verbosity 0 \
    && SECRET_KEY=compilemessages-only VAR_DIR=/tmp/build-state \
        python manage.py compilemessages --verbosity 0 \
    && rm -rf /tmp/build-state \
    && chown -R league "${VAR_DIR}"

USER league
EXPOSE 8000
CMD ["python", "-m", "config.web_server", "--host", "0.0.0.0", "--port", "8000"]
