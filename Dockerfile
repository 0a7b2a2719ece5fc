# The image for web, worker and beat (docker-compose.yml picks the command).
# Static files are collected into the image (STATIC_ROOT) and WhiteNoise serves them.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VAR_DIR=/var/lib/king-league \
    STATIC_ROOT=/app/static

WORKDIR /app

# Dependencies first, so that a code change does not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir -p config api engine bots league web \
    && touch config/__init__.py api/__init__.py engine/__init__.py bots/__init__.py \
        league/__init__.py web/__init__.py \
    && pip install -e . \
    && rm -rf config api engine bots league web

# gettext's msgfmt compiles the translation catalogues (locale/*/LC_MESSAGES/*.po).
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

COPY . .
RUN pip install --no-deps -e . \
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
