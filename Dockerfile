# syntax=docker/dockerfile:1
# Roost's container image (docs/operations.md, "Deploying (container, systemd)").
#
# Two stages: `build` installs every dependency with the tools native addons need (better-sqlite3,
# @node-rs/argon2) and builds @roost/client and @roost/forms (the root's `prepare`, which needs the
# dev dependencies), then drops the dev dependencies; the image itself is the slim Node with the
# sources, the production node_modules and nothing else. Roost runs its TypeScript sources through
# tsx (a production dependency of the root: packages/server/bin/roost.js), so there is no compile
# step. NODE_IMAGE names the base (a mirror's, or one imported locally where Docker Hub cannot be
# reached).
ARG NODE_IMAGE=node:22-bookworm

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
COPY packages/client/package.json packages/client/
COPY packages/forms/package.json packages/forms/
COPY packages/server/package.json packages/server/
COPY scripts scripts
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}-slim AS roost
ENV NODE_ENV=production \
    ROOST_HOST=0.0.0.0 \
    ROOST_PORT=8080 \
    ROOST_DATA_DIR=/data
WORKDIR /app
# A user of its own, without a shell or a home to write to: the data volume is all it writes.
RUN groupadd --system roost && useradd --system --gid roost --no-create-home --shell /usr/sbin/nologin roost \
    && mkdir -p /data && chown roost:roost /data
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/packages packages
USER roost
VOLUME ["/data"]
EXPOSE 8080
# /health answers while the process runs (http/routes/health-routes.ts); fetch is Node's own: no curl in the image.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.ROOST_PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM reaches Roost itself (no npm or shell in between), which drains and stops (http/shutdown.ts).
STOPSIGNAL SIGTERM
# The README's `npm start`, without npm.
CMD ["node", "--conditions=roost-source", "packages/server/bin/roost.js", "serve"]
