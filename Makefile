# jp's build. `make demo` and `make test` are the two set-up commands.
GO       ?= go
BIN      := $(CURDIR)/bin
GOBIN    ?= $(shell $(GO) env GOBIN)
ifeq ($(GOBIN),)
GOBIN    := $(shell $(GO) env GOPATH)/bin
endif
PKGS     := ./...
VERSION  ?= 0.1.0-dev
# The commit is stamped so jp version names it even where the toolchain's
# own VCS stamping is off or fails (a worktree, a -buildvcs=false build).
COMMIT   ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
LDFLAGS  := -X main.Version=$(VERSION) -X main.Commit=$(COMMIT)
GENERATED := wire/wire_gen.go mocks/ports.go
# wire writes its own go:generate line (go run -mod=mod .../cmd/wire) into
# wire_gen.go, beside ours in wire/providers.go (go tool wire, the version
# go.mod pins): go generate would run wire twice, the slowest generator.
GENERATE  := $(GO) generate -skip 'go run -mod=mod github.com/google/wire/cmd/wire' ./...
MANIFESTS := cmd/jp-titles/jp-titles.manifest.json cmd/jp-prune/jp-prune.manifest.json \
  cmd/jp-serve-web/jp-serve-web.manifest.json

PLUGIN_BINS := jp-titles jp-prune jp-serve-web
SHA256SUM ?= $(shell command -v sha256sum >/dev/null 2>&1 && echo sha256sum || echo shasum -a 256)

# install-plugin-files DIR: what go build/install does not put beside jp:
# the jp-titles script, every plugin's manifest, and jp-plugins.sha256,
# the checksums of the plugins installed with jp: jp runs those exact
# binaries without asking for approval (docs/plugins.md). Written to a
# temporary file and renamed, so it is never seen half written.
define install-plugin-files
install -m 0755 cmd/jp-titles/jp-titles $(1)/jp-titles
install -m 0644 $(MANIFESTS) $(1)/
cd $(1) && $(SHA256SUM) $(PLUGIN_BINS) > .jp-plugins.sha256.tmp && chmod 0644 .jp-plugins.sha256.tmp && mv -f .jp-plugins.sha256.tmp jp-plugins.sha256
endef

.PHONY: all build install test test-deps check generate demo bench fuzz web-golden clean

all: build

## build: compile jp, the example plugins and jp-serve-web into ./bin
build:
	@mkdir -p $(BIN)
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/ ./cmd/...
	$(call install-plugin-files,$(BIN))

## install: install jp, the example plugins and jp-serve-web into $GOBIN,
## as release builds: no debug information, no build paths (a third smaller)
install:
	GOBIN=$(GOBIN) $(GO) install -trimpath -ldflags "$(LDFLAGS) -s -w" ./cmd/...
	$(call install-plugin-files,$(GOBIN))

## generate: regenerate wire_gen.go and the moq mocks
generate:
	$(GENERATE)

## check: formatting, vet, staticcheck, and generated files identical to a fresh generate
check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)
	@before=$$(cat $(GENERATED) | sha256sum); \
	  $(GENERATE) || exit 1; \
	  after=$$(cat $(GENERATED) | sha256sum); \
	  if [ "$$before" != "$$after" ]; then \
	    echo "generated files were stale: go generate ./... changed $(GENERATED); commit the result"; exit 1; fi
	@echo "check: ok"

test-deps:
	@./.ci/install-deps

## test: install test dependencies, run check, then the whole suite with -race
test: test-deps check
	$(GO) test -race -count=1 -timeout 45m $(PKGS)

## bench: run every Go benchmark
bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 45m $(PKGS)

## fuzz: run every fuzz target for FUZZTIME each (make test runs their
## committed seed corpora, testdata/fuzz/..., as plain tests)
FUZZTIME ?= 30s
FUZZ_TARGETS := \
  ./adapters/pluginwire:FuzzDecodeMessage \
  ./adapters/eventcodec:FuzzDecodeEvents ./adapters/eventcodec:FuzzMetadata ./adapters/eventcodec:FuzzEachEventRead \
  ./adapters/fsstore:FuzzReadSiloEvents ./adapters/fsstore:FuzzFastMetadata ./adapters/fsstore:FuzzFastLocal \
  ./adapters/headless:FuzzParse ./adapters/llm/demo:FuzzParseScript \
  ./adapters/tomlconfig:FuzzLoad ./domain/draft:FuzzRoundTrip \
  ./cmd/jp-serve-web/web:FuzzMarkdown ./internal/safetext:FuzzWriter \
  ./adapters/terminal:FuzzRenderMarkdown ./adapters/terminal:FuzzJSONString
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t##*:}; \
	  echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
	  $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

## web-golden: draw the web page's reference screenshots again
## (cmd/jp-serve-web/web/testdata/screens, compared by TestWebScreens and
## TestWebApprovalDiff in make test) and copy them to docs/images/web-*.png,
## which docs/web.md shows. Run it after a change to the page's look.
WEB_SCREENS := cmd/jp-serve-web/web/testdata/screens
web-golden:
	JP_WEB_GOLDEN=1 $(GO) test -count=1 -run '^(TestWebScreens|TestWebApprovalDiff)$$' ./cmd/jp-serve-web/web/
	@mkdir -p docs/images
	@for f in $(WEB_SCREENS)/*.png; do cp "$$f" "docs/images/web-$$(basename "$$f")"; done
	@echo "web-golden: wrote $(WEB_SCREENS)/*.png and docs/images/web-*.png"

## demo: build jp and tour it offline on the built-in demo model
demo: build
	@JP_BIN=$(BIN) ./cmd/jp/demo.sh

clean:
	rm -rf $(BIN)
