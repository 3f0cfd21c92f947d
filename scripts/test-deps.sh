#!/usr/bin/env bash
# What the tests need beyond npm packages, installed when missing (run by `npm test` before the tests, and by
# .ci/run): PostgreSQL server binaries, Maven (fetches the local Trino and Schema Registry), Chromium (the
# Swagger UI browser test), htpasswd (bcrypt hashes for the production-like Trino), HAProxy (the balancer of the
# two-instance cluster, scripts/cluster.ts), nginx (the HTTP cache in front of a gateway, scripts/http-cache.ts),
# the zstd CLI and curl (decoders of compressed responses), pyarrow, schemathesis,
# openapi-spec-validator, moto's S3 server (the local Trino spools results to it), pandas, polars and DuckDB;
# and it checks for a JDK >= 24 (Trino 476; none in Debian 12's packages; the registry runs on Java 17 or
# newer). As root it
# installs with apt and pip; otherwise it stops at once with the exact command to run.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then missing+=(postgresql); fi
if ! python3 -m pip --version >/dev/null 2>&1; then missing+=(python3-pip); fi
if ! command -v mvn >/dev/null 2>&1; then missing+=(maven); fi
if [ ! -x /usr/bin/chromium ]; then missing+=(chromium); fi
if ! command -v htpasswd >/dev/null 2>&1; then missing+=(apache2-utils); fi
if ! command -v openssl >/dev/null 2>&1; then missing+=(openssl); fi
if ! command -v haproxy >/dev/null 2>&1 && [ ! -x /usr/sbin/haproxy ]; then missing+=(haproxy); fi
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then missing+=(nginx); fi
if ! command -v zstd >/dev/null 2>&1; then missing+=(zstd); fi
if ! command -v curl >/dev/null 2>&1; then missing+=(curl); fi

jdk_ok() {
  local home major
  for home in ${JAVA_HOME:-} /usr/lib/jvm/* /opt/java/* /usr/local/lib/jvm/*; do
    [ -x "$home/bin/java" ] || continue
    major=$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1 || true)
    if [ "${major:-0}" -ge 24 ]; then return 0; fi
  done
  return 1
}
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "[test-deps] missing: ${missing[*]}. Install them, then run the tests again:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
  echo "[test-deps] installing: ${missing[*]}"
  if [[ " ${missing[*]} " == *" postgresql "* ]]; then
    # Debian's postgresql package would otherwise create and start a cluster "main" on port 5432.
    mkdir -p /etc/postgresql-common/createcluster.d
    echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/topicgate-tests.conf
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
if ! jdk_ok; then
  echo "[test-deps] error: no JDK >= 24 found (JAVA_HOME, /usr/lib/jvm, /opt/java, /usr/local/lib/jvm); Trino 476 needs one" >&2
  exit 1
fi

# Python side: pyarrow (Arrow and Parquet read-back), schemathesis and openapi-spec-validator (OpenAPI tests),
# moto's S3 server (the local Trino's spool), pandas, polars, DuckDB and fsspec (the examples and the reader
# tests), urllib3 with backports.zstd and brotli (compressed responses), pyiceberg with its SQL catalog and
# PostgreSQL driver (reads a load's lake table: examples/lake_read.py), the official MCP client (test/mcp/),
# ADBC's Flight SQL driver (test/flight/).
if ! python3 -c 'import pyarrow, schemathesis, openapi_spec_validator, moto.server, flask, flask_cors, pandas, polars, duckdb, fsspec, urllib3, backports.zstd, brotli, pyiceberg.catalog.sql, psycopg2, mcp, jsonschema, adbc_driver_flightsql.dbapi, adbc_driver_manager' >/dev/null 2>&1; then
  requirements=(-r test/pyarrow/requirements.txt -r test/schemathesis/requirements.txt -r scripts/local-s3.requirements.txt -r examples/requirements.txt -r test/readers/requirements.txt -r test/mcp/requirements.txt -r test/flight/requirements.txt)
  if [ "$(id -u)" != 0 ] && [ -z "${VIRTUAL_ENV:-}" ]; then
    echo "[test-deps] missing Python packages; run:" >&2
    echo "  python3 -m pip install --user ${requirements[*]}" >&2
    exit 1
  fi
  echo "[test-deps] installing the Python test packages"
  # PEP 668 (Debian's system python) would refuse a plain pip install.
  PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 \
    python3 -m pip install -q "${requirements[@]}"
fi

# DuckDB with the httpfs extension from PyPI (the window-file reader tests: DuckDB cannot download httpfs offline),
# installed apart so the DuckDB of the examples stays theirs; the tests put this directory first on PYTHONPATH.
if ! PYTHONPATH=.local/duckdb-httpfs python3 -c 'import duckdb, duckdb_extension_httpfs' >/dev/null 2>&1; then
  echo "[test-deps] installing DuckDB with httpfs into .local/duckdb-httpfs"
  PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1 \
    python3 -m pip install -q --target .local/duckdb-httpfs -r test/readers/httpfs-requirements.txt
fi

# The Flight SQL JDBC driver test program (test/jdbc/), built once into the cache dir (Maven fetches the driver then;
# test runs are offline afterwards). It runs on tsx, an npm package: before `npm ci` (CI runs this script first) it is
# left to `npm test`, whose pretest runs this script again.
if [ -d node_modules/tsx ]; then
  node --import tsx test/jdbc/jdbc-program.ts >/dev/null
fi
