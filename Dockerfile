# One image for every role; the role is chosen with --role at run time.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY . .
ENV NODE_ENV=production
USER node
EXPOSE 8080
ENTRYPOINT ["npx", "tsx", "main.ts"]
