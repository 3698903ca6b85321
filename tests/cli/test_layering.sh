#!/usr/bin/env bash
# The public boundary (make check-layering), checked on the objects this test run built.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
BUILD_DIR=$(cd "${BUILD:-build}" && pwd)
bash "$MCZ_ROOT/tests/layering/check-layering.sh" "$BUILD_DIR"
