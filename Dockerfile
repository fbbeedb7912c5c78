# The tablewire server image: `docker compose up` builds it from this file.
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml setup.py README.md ./
COPY server ./server
COPY protocol ./protocol
COPY engines ./engines
COPY clients ./clients
# The compiled parts (setup.py): gcc builds the C diff; with mypy there too, the
# hot path is compiled with mypyc against the installed dependencies. Then gcc and
# mypy go, with what they pulled in; the check fails the build if nothing compiled.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
  && pip install --no-cache-dir . \
  && pip install --no-cache-dir "mypy==2.4.1" "setuptools>=70.1" wheel \
  && pip install --no-cache-dir --no-build-isolation --no-deps --force-reinstall . \
  && pip uninstall -y mypy librt mypy_extensions pathspec ast-serialize wheel \
  && apt-get purge -y --auto-remove gcc libc6-dev && rm -rf /var/lib/apt/lists/* \
  && python -c "import protocol._speedups, server.room, server.native as n; assert n.compiled()" \
  && useradd --system tablewire

USER tablewire
ENV TABLEWIRE_HOST=0.0.0.0 \
    TABLEWIRE_PORT=8000
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz')"
CMD ["tablewire", "serve"]
