# The tablewire server image: `docker compose up` builds it from this file.
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml setup.py README.md ./
COPY server ./server
COPY protocol ./protocol
COPY engines ./engines
COPY clients ./clients
# gcc only to build protocol._speedups (the C diff), then removed with what it pulled in.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
  && pip install --no-cache-dir . \
  && apt-get purge -y --auto-remove gcc libc6-dev && rm -rf /var/lib/apt/lists/* \
  && python -c "import protocol._speedups" \
  && useradd --system tablewire

USER tablewire
ENV TABLEWIRE_HOST=0.0.0.0 \
    TABLEWIRE_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["tablewire", "serve"]
