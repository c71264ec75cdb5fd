# SPDX-License-Identifier: GPL-2.0
# LTTng for Linux staging: the two commands of the README, and the steps.
#   make demo   prepare, build, boot, show the tracer answering the tools
#   make demo-analyses  lttng-analyses on a trace the guest recorded
#   make test   every test, ending with "N passed, N failed"
#   make test-debug  the guest tests on the debug kernel
#   make bench  the benchmarks against ftrace, with their figures
VARIANT ?= modules

demo: deps
	scripts/demo --variant $(VARIANT)

# LTTng's analyses (lttng-analyses) on a trace of the guest, on the host.
demo-analyses: deps
	scripts/demo --variant $(VARIANT) --analyses

test: deps
	tests/run

# The guest suite on the debug kernel (KASAN, lockdep, UBSAN, kmemleak, ...):
# about an hour under TCG, so not part of 'make test'; see the README.
test-debug: deps
	tests/run --guest-only --variant debug

deps:
	scripts/deps

prepare: deps
	scripts/prepare-tree

build: prepare
	scripts/build-kernel --variant $(VARIANT)

image: build
	scripts/build-image --variant $(VARIANT) >/dev/null

# The benchmarks (tracer per-event cost and zero-loss rate against ftrace
# and the floor, ring buffers), full sizes: make bench BOOTS=3;
# instruction counts instead of time: make bench INSNS=1 (with the
# reference, Debian's lttng-modules on the ref variant; NOREF=1 skips it)
BOOTS ?= 2
bench: deps
	scripts/bench --variant $(VARIANT) --boots $(BOOTS) $(if $(INSNS),--insns) $(if $(NOREF),--no-ref)

# Boot the guest and run CMD there: make run CMD="lttng list -k"
run: image
	scripts/qemu-run --variant $(VARIANT) -- bash -c '$(CMD)'

.PHONY: demo demo-analyses test test-debug deps prepare build image run bench
