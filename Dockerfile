# Images for the three services, one target each:  docker build --target backend|device|frontend .
# No `# syntax=` line: it makes BuildKit fetch a frontend image from Docker Hub, so offline builds would fail.
# Node 24 runs the services' TypeScript sources itself (type stripping; tsconfig's erasableSyntaxOnly keeps
# the code strippable), so neither tsx nor esbuild is in the images. Only the health check is compiled: it
# starts every 30 s, and plain JavaScript starts fastest.
# NODE_IMAGE: compose passes ${NODE_IMAGE:-node:24-slim}; scripts/container-engine.sh builds a local
# equivalent where Docker Hub cannot be reached.
ARG NODE_IMAGE=node:24-slim

# Production dependencies only (hono, mongodb, serialport, ...). --omit=optional: the smoke CLI's browser driver,
# puppeteer-core, is an optional dependency (npm installs those by default), which no service needs; it and its
# tree would add some 55 MB.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force

# healthcheck.ts → dist/healthcheck.cjs, CommonJS, with the compiler from the lock file (the .cjs name, since
# package.json says "type": "module"). Install scripts are skipped: tsc needs no
# native modules, and this stage is thrown away.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY healthcheck.ts ./
RUN npm run build:healthcheck

# What every service image shares. Files stay owned by root: the non-root user can run them, not change them.
FROM ${NODE_IMAGE} AS base
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY lib ./lib

# The backend and the device share the compiled health check: it reads PORT, so each image asks its own
# service's /api/health. A HEALTHCHECK is inherited by the images built FROM this stage.
FROM base AS node-checked
COPY --from=build /app/dist/healthcheck.cjs ./healthcheck.cjs
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --start-interval=0.5s --retries=3 \
  CMD ["node", "/app/healthcheck.cjs"]

FROM node-checked AS backend
COPY backend ./backend
ENV PORT=3001
EXPOSE 3001
USER node
# The release the service reports as `version` (lib/release-id.ts): last, so a new release rebuilds no other layer.
ARG RELEASE_ID
ENV RELEASE_ID=${RELEASE_ID}
CMD ["node", "backend/main.ts"]

FROM node-checked AS device
# dialout: the group that owns serial devices (/dev/ttyUSB*, /dev/ttyACM*) passed in with --device.
RUN usermod -aG dialout node
# The spool (DEVICE_SPOOL_DIR, by default ./spool from WORKDIR: /app/spool) keeps the readings the backend has not
# acknowledged across restarts: the one directory node may write, and a volume, so a new container finds it (a
# new, empty volume takes this directory's owner).
RUN mkdir /app/spool && chown node:node /app/spool
VOLUME /app/spool
COPY device ./device
ENV PORT=3003
EXPOSE 3003
USER node
# The release the service reports as `version` (lib/release-id.ts): last, so a new release rebuilds no other layer.
ARG RELEASE_ID
ENV RELEASE_ID=${RELEASE_ID}
CMD ["node", "device/main.ts"]

FROM base AS frontend
# curl: the frontend's health check is `curl -fsS -o /dev/null http://localhost:3000`; the slim image has none.
RUN apt-get update \
  && apt-get install -y --no-install-recommends curl ca-certificates \
  && rm -rf /var/lib/apt/lists/*
COPY frontend ./frontend
ENV PORT=3000
EXPOSE 3000
USER node
# The release the service reports as `version` (lib/release-id.ts): last, so a new release rebuilds no other layer.
ARG RELEASE_ID
ENV RELEASE_ID=${RELEASE_ID}
HEALTHCHECK --interval=30s --timeout=10s --start-period=40s --start-interval=0.5s --retries=3 \
  CMD ["curl", "-fsS", "-o", "/dev/null", "http://localhost:3000"]
CMD ["node", "frontend/main.ts"]
