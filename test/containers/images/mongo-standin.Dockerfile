# A MongoDB STAND-IN, not MongoDB: dev/mongo-standin/ (a wire-protocol server keeping data in memory only) for machines
# where no MongoDB image can be had. scripts/container-engine.sh builds it as service-health-kit/mongo-standin;
# compose.yaml takes it through MONGO_IMAGE. Node runs the .ts files itself (type stripping), no tsx.
ARG NODE_IMAGE=node:24-slim
FROM ${NODE_IMAGE}
LABEL org.opencontainers.image.title="mongo-standin" \
      org.opencontainers.image.description="A stand-in for the mongo image: dev/mongo-standin/ speaks the wire protocol and the commands the backend uses, keeps data in memory only (lost when it stops); NOT MongoDB" \
      service-health-kit.standin-for="mongo:8.0"
WORKDIR /standin
COPY package.json ./
COPY node_modules ./node_modules
COPY lib ./lib
COPY tools ./tools
COPY dev ./dev
COPY mongosh-standin.ts ./
# The database's health check runs `mongosh --quiet --eval ...`: this stand-in sends a real ping instead.
RUN printf '#!/bin/sh\nexec node /standin/mongosh-standin.ts "$@"\n' >/usr/local/bin/mongosh && chmod 0755 /usr/local/bin/mongosh
USER node
EXPOSE 27017
CMD ["node", "dev/mongo-standin.ts", "--host", "0.0.0.0", "--port", "27017"]
