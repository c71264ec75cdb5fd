# SPDX-License-Identifier: GPL-2.0
# LTTng for Linux staging: the two commands of the README, and the steps.
#   make demo   prepare, build, boot, show the tracer answering the tools
#   make test   every test, ending with "N passed, N failed"
VARIANT ?= modules

demo: deps
	scripts/demo --variant $(VARIANT)

test: deps
	tests/run

deps:
	scripts/deps

prepare: deps
	scripts/prepare-tree

build: prepare
	scripts/build-kernel --variant $(VARIANT)

image: build
	scripts/build-image --variant $(VARIANT) >/dev/null

# Boot the guest and run CMD there: make run CMD="lttng list -k"
run: image
	scripts/qemu-run --variant $(VARIANT) -- bash -c '$(CMD)'

.PHONY: demo test deps prepare build image run
