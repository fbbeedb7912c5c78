# The tablewire server image: `docker compose up` builds it from this file.
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml README.md ./
COPY server ./server
COPY protocol ./protocol
COPY engines ./engines
COPY clients ./clients
RUN pip install --no-cache-dir . && useradd --system tablewire

USER tablewire
ENV TABLEWIRE_HOST=0.0.0.0 \
    TABLEWIRE_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["tablewire", "serve"]
