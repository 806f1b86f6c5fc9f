#!/bin/sh
# SPDX-License-Identifier: MIT
# Stands for a test this build cannot run: prints why ($1) and exits 77,
# which meson counts as SKIP.
echo "SKIP: $1"
exit 77
