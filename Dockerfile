# One image for every process of the system; docker-compose.yml picks the entry point per container.
# Node 24 is the current LTS line; the exact release and npm version are pinned, and `npm ci` installs
# exactly the committed lockfile (which lists every platform's optional binaries), so two builds of
# one commit install the same tree.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV TURBO_TELEMETRY_DISABLED=1
RUN npm install -g npm@11.19.1 --no-audit --no-fund
COPY package.json package-lock.json turbo.json tsconfig.base.json ./
COPY packages/kernel/package.json packages/kernel/
COPY packages/contracts/package.json packages/contracts/
COPY packages/runtime/package.json packages/runtime/
COPY packages/billing/package.json packages/billing/
COPY packages/client/package.json packages/client/
COPY packages/documents/package.json packages/documents/
COPY services/gateway/package.json services/gateway/
COPY services/partners/package.json services/partners/
COPY services/catalog/package.json services/catalog/
COPY services/sales/package.json services/sales/
COPY services/invoicing/package.json services/invoicing/
COPY services/webhooks/package.json services/webhooks/
COPY apps/launcher/package.json apps/launcher/
# The test kit's and the lab's manifests too, so the install matches the lockfile; their sources never enter the image.
COPY packages/testkit/package.json packages/testkit/
COPY tools/bench/package.json tools/bench/
COPY tools/chaos/package.json tools/chaos/
RUN npm ci --no-audit --no-fund
COPY packages packages
COPY services services
COPY apps apps
RUN npx turbo run build --filter='!./tools/*' --filter='!@bo/testkit' && rm -rf tools packages/testkit && npm prune --omit=dev

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
USER node
# Every process starts with the serving V8 flags (apps/launcher/src/node-flags.ts); compose names the entry file.
ENTRYPOINT ["node", "--no-memory-reducer"]
CMD ["services/gateway/dist/main.js"]
