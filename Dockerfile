# idemcheck in a container image, for CI systems that run jobs in images.
#
#   docker build -t idemcheck \
#     --build-arg VERSION="$(git describe --tags --always)" --build-arg COMMIT="$(git rev-parse HEAD)" .
#   docker run --rm -u "$(id -u):$(id -g)" -v "$PWD:/src" idemcheck lint db/migrations
#
# The binary is the entrypoint: the arguments of docker run are idemcheck's.
# It runs as an unprivileged user; mount the work tree with -u set to its
# owner, or git (for --new-from-rev) refuses a repository it does not own.

ARG GO_VERSION=1.26

FROM golang:${GO_VERSION}-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=devel
ARG COMMIT=unknown
# pg_query_go compiles PostgreSQL's parser with cgo: the golang image has gcc.
RUN CGO_ENABLED=1 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X github.com/idemcheck/idemcheck/cmd.version=${VERSION} -X github.com/idemcheck/idemcheck/cmd.commit=${COMMIT}" \
      -o /out/idemcheck . \
 && /out/idemcheck version

FROM debian:bookworm-slim
# git for --new-from-rev; CA certificates for TLS to databases and targets.
# Pinned to bookworm's versions so that a rebuild gets the same packages;
# when Debian replaces one (a security update), the build fails and the pin
# is moved on purpose (apt-cache policy git ca-certificates).
RUN apt-get update \
 && apt-get install -y --no-install-recommends git=1:2.39.5-0+deb12u3 ca-certificates=20250419~deb12u2 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 --user-group idemcheck
COPY --from=build /out/idemcheck /usr/local/bin/idemcheck
COPY --from=build /src/LICENSE /src/NOTICE /src/THIRD_PARTY.md /usr/share/doc/idemcheck/
USER idemcheck
WORKDIR /src
ENTRYPOINT ["/usr/local/bin/idemcheck"]
CMD ["--help"]
