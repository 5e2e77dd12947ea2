# The arena's image: the API (`npm start`) and the workers (`npm run worker`) run from it.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# The client package (a workspace) is installed with the rest; the example bots import it.
COPY sdk/package.json ./sdk/
# tsx runs the TypeScript sources directly, so no build step is needed at run time.
RUN npm ci --omit=dev --no-audit --no-fund
COPY openapi.yaml tsconfig.json ./
COPY sdk/src ./sdk/src
COPY src ./src
COPY workers ./workers
COPY examples ./examples
COPY public ./public
USER node
EXPOSE 3000
CMD ["npm", "start"]
