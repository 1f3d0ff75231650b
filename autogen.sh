#!/bin/sh
# Generates configure and the Makefile.in files from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p config/m4
autoreconf --install --force --warnings=all
