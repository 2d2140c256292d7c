#!/bin/sh
# Renders the docs pictures (topologies/doc/*.dot, written by the DocPictures test) to SVG.
set -e
cd "$(dirname "$0")"
for dot in *.dot; do dot -Tsvg "$dot" -o "${dot%.dot}.svg"; done
