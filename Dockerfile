# One image for every process of the system; docker-compose.yml picks the entry point per container.
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV TURBO_TELEMETRY_DISABLED=1
COPY package.json package-lock.json turbo.json tsconfig.base.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/runtime/package.json packages/runtime/
COPY packages/launcher/package.json packages/launcher/
COPY packages/client/package.json packages/client/
COPY services/gateway/package.json services/gateway/
COPY services/partners/package.json services/partners/
COPY services/catalog/package.json services/catalog/
COPY services/sales/package.json services/sales/
COPY services/invoicing/package.json services/invoicing/
RUN npm install --no-audit --no-fund
COPY packages packages
COPY services services
RUN npx turbo run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
USER node
CMD ["node", "services/gateway/dist/main.js"]
