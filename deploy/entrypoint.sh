#!/bin/sh
# Starts the service named by FLOWMESH_SERVICE from this image (or a checkout with a build).
# exec, so the service replaces this shell and receives SIGTERM (from tini, PID 1) itself.
set -eu

app_root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)

known_services() {
  for main in "$app_root"/services/*/dist/main.js; do
    [ -f "$main" ] || continue
    service_dir=${main%/dist/main.js}
    printf '%s ' "${service_dir##*/}"
  done
}

service=${FLOWMESH_SERVICE:-}
if [ -z "$service" ]; then
  echo "flowmesh: FLOWMESH_SERVICE is not set; set it to one of: $(known_services)" >&2
  exit 64
fi

case "$service" in
  *[!a-z0-9-]* | -*)
    echo "flowmesh: FLOWMESH_SERVICE=\"$service\" is not a service name; use one of: $(known_services)" >&2
    exit 64
    ;;
esac

main="$app_root/services/$service/dist/main.js"
if [ ! -f "$main" ]; then
  echo "flowmesh: unknown service FLOWMESH_SERVICE=\"$service\"; known services: $(known_services)" >&2
  exit 64
fi

exec node "$main" "$@"
