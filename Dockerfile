# GPU Advisor: one image for every surface (web, telegram, discord); the command picks one.
# Build: docker build -t gpu-advisor:0.1.0 .        A web-only image: --build-arg EXTRAS=web,postgres
# Every pip install is pinned by constraints.txt (deploy/pin_constraints.py, `make constraints`):
# the image gets the versions the tests passed with, whatever the index serves on build day.
ARG PYTHON_VERSION=3.12.8
ARG EXTRAS=all

# --- build the wheels (compilers and caches stay in this stage) ---------------------------
FROM python:${PYTHON_VERSION}-slim-bookworm AS build
ARG EXTRAS
WORKDIR /src
COPY pyproject.toml README.md LICENSE constraints.txt ./
COPY src src
RUN pip wheel --no-cache-dir --wheel-dir /wheels --constraint constraints.txt ".[${EXTRAS}]"

# --- run ---------------------------------------------------------------------------------
FROM python:${PYTHON_VERSION}-slim-bookworm
ARG EXTRAS
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    GPU_ADVISOR_LOG_FORMAT=json \
    GPU_ADVISOR_DB=/data/gpu-advisor.db
# The charts' CJK font is the cvttf-NotoSansCJK-Regular wheel of the [charts] extra
# (gpu_advisor.bot.charts.fonts finds it in site-packages); fontconfig lets matplotlib list it.
RUN apt-get update \
    && apt-get install -y --no-install-recommends fontconfig \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 advisor \
    && useradd --system --uid 10001 --gid advisor --home-dir /data --shell /usr/sbin/nologin advisor \
    && mkdir -p /data \
    && chown advisor:advisor /data
COPY --from=build /wheels /wheels
COPY constraints.txt /tmp/constraints.txt
RUN pip install --no-cache-dir --no-index --find-links=/wheels --constraint /tmp/constraints.txt \
        "gpu-advisor[${EXTRAS}]" \
    && rm -rf /wheels /tmp/constraints.txt \
    && gpu-advisor --version
USER advisor
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4).status != 200)"]
ENTRYPOINT ["gpu-advisor"]
CMD ["web", "--host", "0.0.0.0", "--port", "8080"]
