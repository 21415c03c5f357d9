# syntax=docker/dockerfile:1
#
# One image for all five roles of the permit determination API.
#
# Role selection: the image's default command starts the gateway. Every other role is
# started by overriding the command with the matching root package.json script, as
# docker-compose.yml does:
#
#   docker run IMAGE                                   -> npm run start:gateway
#   docker run IMAGE npm run start:stormwater          -> stormwater service
#   (likewise start:nwp, start:entitlement, start:ratelimit, start:sites)
#
# `npm start` is deliberately never used in containers: its prestart hook rebuilds.
# Health: `node deploy/healthcheck.mjs <role>` (gateway: GET /readyz; services: gRPC
# health Check over Connect JSON); compose passes the role explicitly.

############################ build stage ############################
FROM node:24-bookworm-slim AS build
WORKDIR /app

# Manifests first so the dependency layer is cached across source-only changes.
COPY package.json package-lock.json ./
COPY proto/package.json proto/
COPY packages/rules/package.json packages/rules/
COPY packages/runtime/package.json packages/runtime/
COPY packages/state/package.json packages/state/
COPY packages/rpc/package.json packages/rpc/
COPY packages/swppp/package.json packages/swppp/
COPY services/stormwater/package.json services/stormwater/
COPY services/nwp/package.json services/nwp/
COPY services/entitlement/package.json services/entitlement/
COPY services/ratelimit/package.json services/ratelimit/
COPY services/sites/package.json services/sites/
COPY gateway/package.json gateway/
COPY clients/typescript/package.json clients/typescript/
RUN npm ci --no-audit --no-fund

COPY . .
# tsc -b compiles every workspace to its dist/; then drop dev dependencies.
# data/ is created if absent so the runtime COPY below never fails on an empty checkout.
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && mkdir -p data

############################ runtime stage ##########################
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false
WORKDIR /app

# Root manifest (holds the start:<role> scripts) and production node_modules.
# node_modules/@permits/* are workspace symlinks, resolved by the same paths below.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules

COPY --from=build /app/proto/package.json proto/
COPY --from=build /app/proto/dist proto/dist
COPY --from=build /app/packages/rules/package.json packages/rules/
COPY --from=build /app/packages/rules/dist packages/rules/dist
COPY --from=build /app/packages/runtime/package.json packages/runtime/
COPY --from=build /app/packages/runtime/dist packages/runtime/dist
COPY --from=build /app/packages/state/package.json packages/state/
COPY --from=build /app/packages/state/dist packages/state/dist
COPY --from=build /app/packages/rpc/package.json packages/rpc/
COPY --from=build /app/packages/rpc/dist packages/rpc/dist
COPY --from=build /app/packages/swppp/package.json packages/swppp/
COPY --from=build /app/packages/swppp/dist packages/swppp/dist
COPY --from=build /app/services/stormwater/package.json services/stormwater/
COPY --from=build /app/services/stormwater/dist services/stormwater/dist
COPY --from=build /app/services/nwp/package.json services/nwp/
COPY --from=build /app/services/nwp/dist services/nwp/dist
COPY --from=build /app/services/entitlement/package.json services/entitlement/
COPY --from=build /app/services/entitlement/dist services/entitlement/dist
COPY --from=build /app/services/ratelimit/package.json services/ratelimit/
COPY --from=build /app/services/ratelimit/dist services/ratelimit/dist
COPY --from=build /app/services/sites/package.json services/sites/
COPY --from=build /app/services/sites/dist services/sites/dist
COPY --from=build /app/gateway/package.json gateway/
COPY --from=build /app/gateway/dist gateway/dist
COPY --from=build /app/gateway/openapi gateway/openapi

# Read-only reference data (services resolve it as /app/data; DATA_DIR overrides).
COPY --from=build /app/data ./data
COPY deploy/healthcheck.mjs deploy/healthcheck.mjs
# `npm run keys` runs the compiled key CLI; the image has no build tool.
COPY scripts/keys.mjs scripts/keys.mjs
COPY scripts/sites.mjs scripts/sites.mjs
COPY scripts/lib/run-compiled.mjs scripts/lib/run-compiled.mjs

# Non-root: the node user (uid 1000) ships with the base image. Application files stay
# root-owned (read-only to the process); only STATE_DIR, when used, needs to be writable.
RUN mkdir -p /app/.state && chown node:node /app/.state
USER node

EXPOSE 8080
# The same image runs each service (npm run start:<service>) on its default port.
EXPOSE 7001 7002 7003 7004 7005
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "deploy/healthcheck.mjs", "gateway"]
CMD ["npm", "run", "start:gateway"]
