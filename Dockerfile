# The tablewire server image: `docker compose up` builds it from this file.
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml setup.py README.md ./
COPY server ./server
COPY protocol ./protocol
COPY engines ./engines
COPY clients ./clients
# The compiled parts (setup.py): gcc builds the C diff; with mypy there too, the
# hot path is compiled with mypyc against the installed dependencies. PyICU (the
# look-alike name check) is built with g++ against ICU's headers; ICU's library
# stays. Then the compilers and mypy go, with what they pulled in; the check fails
# the build if nothing compiled.
RUN apt-get update && apt-get install -y --no-install-recommends gcc g++ libc6-dev \
    pkg-config libicu-dev \
  && apt-mark manual $(dpkg-query -W -f '${Package}\n' 'libicu[0-9]*') \
  && pip install --no-cache-dir . \
  && pip install --no-cache-dir "mypy==2.4.1" "setuptools>=70.1" wheel \
  && pip install --no-cache-dir --no-build-isolation --no-deps --force-reinstall . \
  && pip uninstall -y mypy librt mypy_extensions pathspec ast-serialize wheel \
  && apt-get purge -y --auto-remove gcc g++ libc6-dev pkg-config libicu-dev && rm -rf /var/lib/apt/lists/* \
  && python -c "import icu, protocol._speedups, server.room, server.native as n; assert n.compiled()" \
  && useradd --system tablewire

USER tablewire
ENV TABLEWIRE_HOST=0.0.0.0 \
    TABLEWIRE_PORT=8000
EXPOSE 8000
# /healthz on the address and port TABLEWIRE_HOST and TABLEWIRE_PORT give (server/probe.py).
HEALTHCHECK --interval=10s --timeout=3s \
  CMD python -m server.probe
CMD ["tablewire", "serve"]
