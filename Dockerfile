# One image for every role; the role is chosen with --role at run time.
# The pages (web/) and the service's bundle (dist/main.mjs) are built in a stage of their own, since Vite and esbuild
# are development dependencies.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx tsx web/build.ts --force && npx tsx bin/build-service.ts

FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
COPY --from=build /app/web/dist ./web/dist
COPY --from=build /app/dist ./dist
ENV NODE_ENV=production
USER node
EXPOSE 8080
ENTRYPOINT ["node", "dist/main.mjs"]
