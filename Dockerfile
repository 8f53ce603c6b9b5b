# mediad in a container: a Swift build stage, then a slim Debian bookworm runtime that holds only the
# binary, the OpenAPI document and the shared libraries the binary links (libav 5.1, libcrypto, zlib).
#
#   docker build -t mediad .
#   docker run -p 8080:8080 -v mediad-data:/data mediad
#
# The binary is built with --static-swift-stdlib, so no Swift runtime is installed in the final image; it
# links the C++ runtime (libstdc++6, libgcc-s1) instead, and is stripped (about 69 MB).
# Tests/mediadTests/DeployManifestTests.swift checks this file against the libraries the binary links.

FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libavfilter-dev libswscale-dev \
        libssl-dev zlib1g-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY openapi.yaml ./
RUN swift build -c release --static-swift-stdlib --product mediad \
    && install -D -s -m 0755 "$(swift build -c release --show-bin-path)/mediad" /out/usr/local/bin/mediad \
    && install -D -m 0644 openapi.yaml /out/usr/share/mediad/openapi.yaml

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        libavformat59 libavcodec59 libavutil57 libswresample4 libavfilter8 libswscale6 libssl3 zlib1g libstdc++6 libgcc-s1 curl \
        ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 mediad \
    && useradd --system --uid 10001 --gid mediad --home-dir /data --shell /usr/sbin/nologin mediad \
    && install -d -o mediad -g mediad -m 0750 /data
COPY --from=build /out/ /
ENV MEDIAD_OPENAPI=/usr/share/mediad/openapi.yaml
USER 10001:10001
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/healthz"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/mediad"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080", "--data-dir", "/data"]
