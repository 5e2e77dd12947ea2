# The arena's image: the API (`npm run start:dist`) and the workers (`npm run worker:dist`) run from
# it, compiled: they start in about half the time and hold about 30% less memory than under tsx.

# The build: every dependency (TypeScript is a dev one), then `npm run build` into dist/.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY sdk/package.json ./sdk/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY sdk/src ./sdk/src
COPY src ./src
COPY workers ./workers
RUN npm run build

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# The client package (a workspace) is installed with the rest; the example bots import it.
COPY sdk/package.json ./sdk/
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
# Read at run time from the project's root: the contract and the web pages. The sources stay for
# `npm start` and the example bots (`npm run bot`), which tsx runs as they are.
COPY openapi.yaml tsconfig.json ./
COPY sdk/src ./sdk/src
COPY src ./src
COPY workers ./workers
COPY examples ./examples
COPY starters ./starters
COPY public ./public
USER node
EXPOSE 3000
CMD ["npm", "run", "start:dist"]
