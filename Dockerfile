# One image for every role; the role is chosen with --role at run time.
# The pages (web/) are built in a stage of their own, since Vite is a development dependency.
FROM node:20-bookworm-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY protocol ./protocol
COPY web ./web
RUN npx tsx web/build.ts --force

FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
COPY --from=web /app/web/dist ./web/dist
ENV NODE_ENV=production
USER node
EXPOSE 8080
ENTRYPOINT ["npx", "tsx", "main.ts"]
