# mediad — build, test and run on Debian. Every target installs the system packages it needs first.

SWIFT ?= swift
APT_PACKAGES := libavformat-dev libavcodec-dev libavutil-dev libswresample-dev libssl-dev zlib1g-dev \
	pkg-config ffmpeg curl
PYTHON_PACKAGES := openapi-spec-validator jsonschema pyyaml
SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

.PHONY: deps test-deps build release test run clean format

## Installs the Debian packages that are missing (libav headers, the ffmpeg/ffprobe test oracle, …).
deps:
	@missing=""; for package in $(APT_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

## Installs the Python packages the OpenAPI spec test (Tests/ServerTests/openapi_check.py) uses; where pip
## refuses to touch an "externally managed" Python (Debian's own), they are installed for the user instead.
test-deps: deps
	@python3 -c 'import openapi_spec_validator, jsonschema, yaml' 2>/dev/null || { \
		echo "installing: $(PYTHON_PACKAGES)"; \
		python3 -m pip install --quiet $(PYTHON_PACKAGES) || \
			python3 -m pip install --quiet --user --break-system-packages $(PYTHON_PACKAGES); \
	}

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Builds everything and runs the whole test suite (unit, engine, CLI, real-world media).
test: test-deps
	$(SWIFT) build
	MEDIAD_BIN="$$($(SWIFT) build --show-bin-path)/mediad" $(SWIFT) test

## Builds the release binary and starts the service on its defaults (127.0.0.1:8080, ./data).
run: release
	"$$($(SWIFT) build -c release --show-bin-path)/mediad" serve

format:
	swift-format format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build
