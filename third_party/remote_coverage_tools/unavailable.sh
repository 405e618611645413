#!/bin/sh
echo "remote_coverage_tools: not available offline; use 'go test -cover'" >&2
exit 1
