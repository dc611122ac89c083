#!/usr/bin/env bash
# The services the several-servers tests use: PostgreSQL on 127.0.0.1:5432 (user postgres, trust) and Redis on
# 127.0.0.1:6379. When both answer, nothing is done. Otherwise, as root with apt-get, Debian's postgresql and
# redis-server are installed when missing (a fresh PostgreSQL gets trust for local TCP, which the tests log in
# with) and started. Without root or apt-get, or when that fails, it says so and the tests that need them skip.

# A TCP connect, for machines without the clients.
port_answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

postgres_answers() {
  if command -v pg_isready >/dev/null 2>&1; then pg_isready -q -h 127.0.0.1 -p 5432; else port_answers 5432; fi
}

redis_answers() {
  if command -v redis-cli >/dev/null 2>&1; then [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = PONG ]; else port_answers 6379; fi
}

missing=""
postgres_answers || missing="$missing PostgreSQL"
redis_answers || missing="$missing Redis"
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1 || [ "$(id -u)" != 0 ]; then
  echo "services:$missing not answering on 127.0.0.1 (starting them needs root and apt-get); the tests that need them will skip" >&2
  exit 0
fi

packages=""
case "$missing" in *PostgreSQL*) compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || packages="$packages postgresql" ;; esac
case "$missing" in *Redis*) command -v redis-server >/dev/null 2>&1 || packages="$packages redis-server" ;; esac
if [ -n "$packages" ]; then
  echo "services: installing$packages"
  if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages) >/dev/null 2>&1; then
    echo "services: could not install$packages; the tests that need$missing will skip" >&2
    exit 0
  fi
fi

case "$missing" in *PostgreSQL*)
  # Each cluster Debian knows (a fresh install makes "main" on 5432); trust only on a cluster this run installed.
  pg_lsclusters -h 2>/dev/null | while read -r version cluster _; do
    case "$packages" in *postgresql*)
      hba="/etc/postgresql/$version/$cluster/pg_hba.conf"
      # The first matching line wins: these go before Debian's password lines.
      [ -f "$hba" ] && sed -i -e '1i host all all 127.0.0.1/32 trust' -e '1i host all all ::1/128 trust' "$hba"
      pg_ctlcluster "$version" "$cluster" stop >/dev/null 2>&1 ;;
    esac
    pg_ctlcluster "$version" "$cluster" start >/dev/null 2>&1
  done ;;
esac

case "$missing" in *Redis*)
  # Debian's service where it can run; else a bare daemon that keeps nothing on disk (the tests need no data kept).
  { service redis-server start && sleep 1 && redis_answers; } >/dev/null 2>&1 ||
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no >/dev/null 2>&1 ;;
esac

# Both take a moment to accept connections.
for _ in $(seq 50); do
  postgres_answers && redis_answers && { echo "services:$missing started"; exit 0; }
  sleep 0.2
done
postgres_answers || echo "services: PostgreSQL does not answer on 127.0.0.1:5432; the tests that need it will skip" >&2
redis_answers || echo "services: Redis does not answer on 127.0.0.1:6379; the tests that need it will skip" >&2
exit 0
