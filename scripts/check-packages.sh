#!/usr/bin/env bash
# Checks the public packages as a consumer gets them: packs each one, runs publint and attw (ESM-only profile: the
# packages are ESM) on it, then installs the tarballs into a scratch project outside the repository, copies the
# README's snippets into it verbatim, compiles them strictly (skipLibCheck false) and runs them.
# Needs a build (npm run build). Exits non-zero when any step fails, after running all of them.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
packages=(core http trpc rest drivers pglite embed client cli)
work=$(mktemp -d "${TMPDIR:-/tmp}/petstore-packages-XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "check-packages: $*"; status=1; }
version() { node -p "require('$root/node_modules/$1/package.json').version"; }
# The OpenTelemetry SDK the telemetry snippet registers: the versions embed's tests pin.
embed_dev() { node -p "require('$root/packages/embed/package.json').devDependencies['$1']"; }

for name in "${packages[@]}"; do
  tarball=$(npm pack -w "packages/$name" --pack-destination "$work" --silent 2>/dev/null | tail -1)
  [ -f "$work/$tarball" ] || { fail "npm pack failed for @petstore/$name"; continue; }
  if tar -tzf "$work/$tarball" | grep -qE '(\.test\.ts|\.test-d\.ts|/testing/)'; then
    fail "@petstore/$name ships tests or test helpers"
  fi
  npx --no-install publint "packages/$name" --strict || fail "publint failed for @petstore/$name"
  npx --no-install attw "$work/$tarball" --profile esm-only --format table-flipped || fail "attw failed for @petstore/$name"
done

tsconfig() {
  cat > "$1/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2023", "lib": ["ES2023", "DOM"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "skipLibCheck": false, "noUncheckedIndexedAccess": true, "types": ["node"],
    "outDir": "dist", "rootDir": "src"
  },
  "include": ["src"]
}
JSON
}
tarball() { ls "$work"/petstore-"$1"-*.tgz; }
# What the host snippets use beside the packages: the hosts, the host's own pool, logger, tRPC client and SDK.
host_packages=("zod@$(version zod)" "kysely@$(version kysely)" "@trpc/server@$(version @trpc/server)"
  "@trpc/client@$(version @trpc/client)" "typescript@$(version typescript)" "@types/node@$(version @types/node)"
  "express@$(version express)" "@types/express@$(version @types/express)" "fastify@$(version fastify)"
  "hono@$(version hono)" "@hono/node-server@$(version @hono/node-server)" "pino@$(version pino)"
  "@opentelemetry/api@$(version @opentelemetry/api)" "@opentelemetry/sdk-trace-base@$(embed_dev @opentelemetry/sdk-trace-base)"
  "@opentelemetry/core@$(embed_dev @opentelemetry/core)" "@opentelemetry/context-async-hooks@$(embed_dev @opentelemetry/context-async-hooks)"
  "pg@$(version pg)" "@types/pg@$(version @types/pg)")

# Installs packages into a scratch project with npm, or with pnpm (its strict layout: a project reaches only the
# packages it names itself). The packages' dependencies on each other resolve to the tarballs, as the registry would
# serve them (overrides; npm refuses one that names a direct dependency, which it takes from the tarball anyway).
install_into() {
  local dir=$1 manager=$2
  shift 2
  local overrides="" name
  for name in "${packages[@]}"; do
    [[ $manager = npm && " $* " == *" $(tarball "$name") "* ]] || overrides+="\"@petstore/$name\": \"file:$(tarball "$name")\","
  done
  # npm reads its overrides from package.json; pnpm from pnpm-workspace.yaml (JSON is YAML).
  node -e '
    const fs = require("fs");
    const [dir, manager, overrides] = process.argv.slice(1);
    const map = JSON.parse(`{${overrides.replace(/,$/, "")}}`);
    if (manager === "pnpm") fs.writeFileSync(`${dir}/pnpm-workspace.yaml`, JSON.stringify({ overrides: map }, null, 2));
    else {
      const pkg = JSON.parse(fs.readFileSync(`${dir}/package.json`, "utf8"));
      fs.writeFileSync(`${dir}/package.json`, JSON.stringify({ ...pkg, overrides: map }, null, 2));
    }
  ' "$dir" "$manager" "$overrides"
  if [ "$manager" = npm ]; then
    (cd "$dir" && npm install --no-audit --no-fund --no-package-lock --silent "$@")
  else
    (cd "$dir" && "$root/node_modules/.bin/pnpm" add --silent --config.confirmModulesPurge=false "$@" >/dev/null)
  fi
}

# Every tarball, for the projects that install them all.
all_tarballs=()
for name in "${packages[@]}"; do all_tarballs+=("$(tarball "$name")"); done

# The README's snippets and every package README's fragments, installed with npm or with pnpm ($1).
check_manager() {
  local manager=$1 consumer fragments
  # The repository README's snippets, in a project that installs only what the README's install lines name: every
  # fenced block after a `<!-- snippet: NAME -->` line becomes src/NAME.ts, compiled strictly and run.
  consumer="$work/consumer-$manager"
  mkdir -p "$consumer/src"
  echo '{ "name": "petstore-consumer", "private": true, "type": "module" }' > "$consumer/package.json"
  tsconfig "$consumer"
  node scripts/readme-snippets.mjs extract README.md "$consumer/src" || fail "the README's snippets could not be extracted"
  if install_into "$consumer" "$manager" "$(tarball embed)" "$(tarball pglite)" "$(tarball trpc)" "$(tarball client)" "$(tarball cli)" "${host_packages[@]}"; then
    if (cd "$consumer" && npx --no-install tsc -p tsconfig.json); then
      node scripts/readme-snippets.mjs run "$consumer" || fail "a README snippet compiled but did not run as it says ($manager)"
    else
      fail "the README's snippets do not compile strictly (skipLibCheck false) against the packed packages ($manager)"
    fi
  else
    fail "the tarballs did not install into a scratch project ($manager)"
  fi

  # Every TypeScript fragment of every package's README, as pasted, in a project with every package installed.
  fragments="$work/fragments-$manager"
  mkdir -p "$fragments/src"
  echo '{ "name": "petstore-fragments", "private": true, "type": "module" }' > "$fragments/package.json"
  tsconfig "$fragments"
  for name in "${packages[@]}"; do
    node scripts/readme-snippets.mjs extract-all "packages/$name/README.md" "$fragments/src" "$name" ||
      fail "the fragments of packages/$name/README.md could not be extracted"
  done
  if install_into "$fragments" "$manager" "${all_tarballs[@]}" "${host_packages[@]}"; then
    (cd "$fragments" && npx --no-install tsc -p tsconfig.json --noEmit) ||
      fail "a fragment of a package's README does not compile as pasted ($manager)"
  else
    fail "the tarballs did not install into the fragments' project ($manager)"
  fi
}

# The README's snippets and every package README's fragments on the versions users get: each peer of the packages at
# the newest release its range allows (read from the packages' peerDependencies, so a new peer is covered without a
# line here), once per major of a peer range with several (kysely ^0.28 || ^0.29). Compiled strictly and run as in the
# pinned projects above; on kysely 0.29 also a host's own Migrator from kysely/migration (scripts/kysely-next-host.ts).
mapfile -t peer_sets < <(node -e '
  const fs = require("fs");
  const ranges = new Map();
  for (const name of process.argv.slice(1)) {
    const peers = JSON.parse(fs.readFileSync(`packages/${name}/package.json`, "utf8")).peerDependencies ?? {};
    for (const [peer, range] of Object.entries(peers)) if (!peer.startsWith("@petstore/")) ranges.set(peer, range);
  }
  const split = [...ranges].map(([peer, range]) => range.split("||").map((one) => `${peer}@${one.trim()}`));
  // One set per alternative of the peer with the most (each other peer at its whole range).
  const widest = Math.max(...split.map((alternatives) => alternatives.length));
  for (let i = 0; i < widest; i++) console.log(split.map((alternatives) => alternatives[Math.min(i, alternatives.length - 1)]).join(" "));
' "${packages[@]}")
check_peers() {
  local peer_set=$1 peers kysely_range newest newest_host keep pinned peer installed
  read -ra peers <<< "$peer_set"
  kysely_range=$(printf '%s\n' "${peers[@]}" | sed -n 's/^kysely@//p')
  newest="$work/newest-peers-$(echo "$kysely_range" | tr -cd '0-9.')"
  mkdir -p "$newest/src"
  echo '{ "name": "newest-peers", "private": true, "type": "module" }' > "$newest/package.json"
  tsconfig "$newest"
  node scripts/readme-snippets.mjs extract README.md "$newest/src" >/dev/null || fail "the README's snippets could not be extracted"
  for name in "${packages[@]}"; do
    node scripts/readme-snippets.mjs extract-all "packages/$name/README.md" "$newest/src" "$name" >/dev/null ||
      fail "the fragments of packages/$name/README.md could not be extracted"
  done
  # The host's own packages stay as pinned; the peers take their ranges.
  newest_host=()
  for pinned in "${host_packages[@]}"; do
    keep=1
    for peer in "${peers[@]}"; do [ "${pinned%@*}" = "${peer%@*}" ] && keep=0; done
    [ $keep = 1 ] && newest_host+=("$pinned")
  done
  if install_into "$newest" npm "${all_tarballs[@]}" "${newest_host[@]}" "${peers[@]}"; then
    installed=$(cd "$newest" && node -p 'const v = (n) => require(`./node_modules/${n}/package.json`).version; process.argv.slice(1).map((p) => `${p.replace(/@[^@]*$/, "")} ${v(p.replace(/@[^@]*$/, ""))}`).join(", ")' "${peers[@]}")
    echo "check-packages: the newest peers in range: $installed"
    [[ $kysely_range == ^0.29* ]] && cp scripts/kysely-next-host.ts "$newest/src/"
    if (cd "$newest" && npx --no-install tsc -p tsconfig.json); then
      node scripts/readme-snippets.mjs run "$newest" || fail "a README snippet compiled but did not run as it says (peers: $peer_set)"
      if [ -n "${DATABASE_URL:-}" ] && [ -f "$newest/dist/kysely-next-host.js" ]; then
        (cd "$newest" && node dist/kysely-next-host.js) || fail "the store did not run beside a host's own kysely 0.29 Migrator"
      fi
    else
      fail "the README's snippets or a package README's fragments do not compile strictly against the newest peers ($peer_set)"
    fi
  else
    fail "the tarballs did not install with the newest peers ($peer_set)"
  fi
}

# A host on PostgreSQL that already has TypeScript installs the packages without the embedded database: nothing of
# PGlite, its template, tar, ioredis or the OpenTelemetry API may arrive, the whole must stay within 25 MB and 30
# packages, the public types must compile strictly (skipLibCheck false) without the API, and the in-process calls
# must work on DATABASE_URL (scripts/postgres-host.mjs) without loading any of them. Then the host installs its own
# pg, pino, @trpc/client and OpenTelemetry SDK and serves REST and tRPC on its pool, schema, logger and tracer
# provider (scripts/traced-host.mjs).
# (This check and the next are not indented: their here-documents end at the start of a line.)
check_postgres_host() {
host="$work/postgres-host"
mkdir -p "$host/src"
count_packages() { find "$host/node_modules" -name package.json | grep -cE 'node_modules/(@[^/]+/)?[^/]+/package\.json$'; }
size_kb() { du -sk "$host/node_modules" | cut -f1; }
# As a host deploys: its package.json names @petstore/embed with kysely and zod (no tRPC, no TypeScript at run time;
# TypeScript and @types/node are its dev dependencies), a lock file, then `npm ci --omit=dev`. The packages' own
# dependencies on each other resolve to the tarballs, as the registry would serve them.
node -e '
  const fs = require("fs");
  const [dir, work, zod, kysely, typescript, types] = process.argv.slice(1);
  const tarballs = fs.readdirSync(work).filter((file) => /^petstore-.*\.tgz$/.test(file));
  const file = (name) => `file:${work}/${tarballs.find((t) => t.startsWith(`petstore-${name}-`))}`;
  const overrides = Object.fromEntries(["core", "http", "rest", "trpc", "drivers"].map((name) => [`@petstore/${name}`, file(name)]));
  fs.writeFileSync(`${dir}/package.json`, JSON.stringify({
    name: "postgres-host", private: true, type: "module",
    dependencies: { "@petstore/embed": file("embed"), kysely, zod },
    devDependencies: { typescript, "@types/node": types },
    overrides,
  }, null, 2));
' "$host" "$work" "$(version zod)" "$(version kysely)" "$(version typescript)" "$(version @types/node)"
if (cd "$host" && npm install --package-lock-only --no-audit --no-fund --silent && npm ci --omit=dev --no-audit --no-fund --silent); then
  host_kb=$(size_kb) host_count=$(count_packages)
  host_mb=$(awk "BEGIN { printf \"%.1f\", $host_kb / 1024 }")
  echo "check-packages: a host on PostgreSQL without tRPC installs $host_mb MB and $host_count packages with npm ci --omit=dev (target: 25 MB and 30 packages)"
  [ "$host_kb" -le $((25 * 1024)) ] || fail "a host on PostgreSQL installs $host_mb MB (at most 25 MB)"
  [ "$host_count" -le 30 ] || fail "a host on PostgreSQL installs $host_count packages (at most 30)"
  for unwanted in typescript @trpc/server @electric-sql/pglite @petstore/pglite tar ioredis tldts @types/pg @opentelemetry/api; do
    [ -e "$host/node_modules/$unwanted" ] && fail "$unwanted is installed in a host on PostgreSQL that does not use it"
  done
  if (cd "$host" && npm ci --no-audit --no-fund --silent); then
    cat > "$host/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2023", "lib": ["ES2023", "DOM"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "skipLibCheck": false, "noUncheckedIndexedAccess": true, "types": ["node"], "noEmit": true
  },
  "include": ["src"]
}
JSON
    cat > "$host/src/types.ts" <<'TS'
import { createPetStore, type TracerProviderLike } from '@petstore/core';
import { createHttpHandler, openPetStore, type OpenPetStoreOptions } from '@petstore/embed';
import { createPipeline } from '@petstore/http';
import { createRestCodec } from '@petstore/rest';
import { openDatabase } from '@petstore/drivers';

const tracerProvider: TracerProviderLike = { getTracer: () => ({}) };
const options: OpenPetStoreOptions = { databaseUrl: 'postgres://localhost/petstore', tracerProvider };
export const uses = [createPetStore, createHttpHandler, openPetStore, createPipeline, createRestCodec, openDatabase, options];
TS
    (cd "$host" && npx --no-install tsc -p tsconfig.json) ||
      fail "the public types do not compile strictly (skipLibCheck false) in a host on PostgreSQL without @opentelemetry/api"
    if [ -n "${DATABASE_URL:-}" ]; then
      cp scripts/postgres-host.mjs scripts/traced-host.mjs "$host/"
      (cd "$host" && node postgres-host.mjs) || fail "the in-process calls failed in a host on PostgreSQL without PGlite or @opentelemetry/api"
    else
      echo "check-packages: DATABASE_URL is not set; the in-process calls on PostgreSQL were not run"
    fi
    # The host's own pool, logger, tRPC server and client and OpenTelemetry SDK (the versions embed's tests pin).
    if (cd "$host" && npm install --no-audit --no-fund --no-package-lock --silent "pg@$(version pg)" "pino@$(version pino)" \
      "@trpc/server@$(version @trpc/server)" "@trpc/client@$(version @trpc/client)" "@opentelemetry/api@$(version @opentelemetry/api)" \
      "@opentelemetry/sdk-trace-base@$(embed_dev @opentelemetry/sdk-trace-base)" "@opentelemetry/core@$(embed_dev @opentelemetry/core)" \
      "@opentelemetry/context-async-hooks@$(embed_dev @opentelemetry/context-async-hooks)"); then
      if [ -n "${DATABASE_URL:-}" ]; then
        (cd "$host" && node traced-host.mjs) ||
          fail "REST, tRPC or in-process calls failed in a host on PostgreSQL with its own pool, schema, logger and tracing"
      fi
    else
      fail "pg, pino, @trpc/client and OpenTelemetry did not install into the host on PostgreSQL"
    fi
    # What the embedded database adds on top (scripts/check-packages.sh prints it; the README states it).
    host_kb=$(size_kb) host_count=$(count_packages)
    if (cd "$host" && npm install --no-audit --no-fund --no-package-lock --silent "$work"/petstore-pglite-*.tgz); then
      echo "check-packages: the embedded database adds $((($(size_kb) - host_kb) / 1024)) MB and $(($(count_packages) - host_count)) packages more"
    else
      fail "@petstore/pglite did not install into the host"
    fi
  else
    fail "the host on PostgreSQL did not install with its dev dependencies (TypeScript, @types/node)"
  fi
else
  fail "the tarballs did not install into a host on PostgreSQL (npm ci --omit=dev)"
fi
}

# @petstore/client alone, as a browser or Node app installs it: no server code, at most 4 packages (the client, zod
# for its types, p-limit and its yocto-queue for the request slots), its size stated; typed calls compile strictly (skipLibCheck false) with the DOM's types
# and no @types/node, and wrong inputs do not (each @ts-expect-error below must meet an error, or tsc fails).
check_client_app() {
app="$work/client-app"
mkdir -p "$app/src"
echo '{ "name": "client-app", "private": true, "type": "module" }' > "$app/package.json"
app_packages() { find "$app/node_modules" -name package.json | grep -cE 'node_modules/(@[^/]+/)?[^/]+/package\.json$'; }
if (cd "$app" && npm install --no-audit --no-fund --no-package-lock --silent "typescript@$(version typescript)"); then
  before_kb=$(du -sk "$app/node_modules" | cut -f1) before_count=$(app_packages)
  if (cd "$app" && npm install --no-audit --no-fund --no-package-lock --silent "$work"/petstore-client-*.tgz); then
    added_kb=$(($(du -sk "$app/node_modules" | cut -f1) - before_kb)) added_count=$(($(app_packages) - before_count))
    client_kb=$(du -sk --apparent-size "$app/node_modules/@petstore/client" | cut -f1)
    echo "check-packages: @petstore/client installs $added_count packages, $((added_kb / 1024)) MB ($client_kb kB of it the client; the rest zod, for its types, and p-limit)"
    [ "$added_count" -le 4 ] || fail "@petstore/client installs $added_count packages (at most 4)"
    for unwanted in @petstore/core @petstore/http @petstore/rest @petstore/trpc @petstore/drivers @petstore/embed kysely rate-limiter-flexible @trpc/server; do
      [ -e "$app/node_modules/$unwanted" ] && fail "$unwanted is installed with @petstore/client"
    done
    cat > "$app/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2023", "lib": ["ES2023", "DOM", "DOM.Iterable"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "skipLibCheck": false, "noUncheckedIndexedAccess": true, "types": [], "noEmit": true
  },
  "include": ["src"]
}
JSON
    cat > "$app/src/calls.ts" <<'TS'
import { createClient, PetStoreApiError, type OperationInput, type OperationOutput } from '@petstore/client';

const petstore = createClient({ baseUrl: 'https://api.example.com/v1', apiKey: 'psk_example', maxRetries: 2 });
export async function calls(): Promise<unknown[]> {
  const pet = await petstore.createPet({ name: 'Rex', categoryId: 1 });
  const id: number = pet.id;
  const page = await petstore.listPets({ status: 'available', limit: 20 });
  const names: string[] = [];
  for await (const each of petstore.paginate('listPets', { status: 'available' })) names.push(each.name);
  const same = await petstore.getPet({ petId: id });
  const input: OperationInput<'createPet'> = { name: 'Kit', categoryId: 2, status: 'sold' };
  // @ts-expect-error categoryId is an integer, not a string
  await petstore.createPet({ name: 'Rex', categoryId: '1' });
  // @ts-expect-error name is required
  await petstore.createPet({ categoryId: 1 });
  // @ts-expect-error the service assigns ids
  await petstore.createPet({ name: 'Rex', categoryId: 1, id: 7 });
  // @ts-expect-error no such status
  await petstore.listPets({ status: 'lost' });
  // @ts-expect-error petId is required
  await petstore.getPet({});
  // @ts-expect-error createPet is not a listing
  petstore.paginate('createPet', { name: 'Rex', categoryId: 1 });
  // @ts-expect-error no such operation
  await petstore.notAnOperation({ petId: id });
  const changed = await petstore.updatePet({ petId: id, status: 'sold' }, { ifMatch: '"1.1"' });
  // @ts-expect-error a change's status is one of available, pending, sold
  await petstore.updatePet({ petId: id, status: 'lost' });
  const typed: OperationOutput<'listPets'> = page;
  const one: OperationOutput<'createPet'> = same;
  return [one, input, typed, names, changed, PetStoreApiError];
}
TS
    (cd "$app" && npx --no-install tsc -p tsconfig.json) ||
      fail "@petstore/client's types do not give typed calls that refuse wrong inputs (strict, skipLibCheck false, no @types/node)"
  else
    fail "@petstore/client did not install into a scratch app"
  fi
else
  fail "TypeScript did not install into the scratch client app"
fi
}

# The checks above are independent of each other (each its own scratch project; on PostgreSQL, only the host's check
# uses DATABASE_URL's own database, the others databases or schemas they make): three run at a time, each with its
# output kept and printed whole, in the order they were started, once all have ended. A failure in any fails the script.
checks=()
start_check() {
  local log="$work/check-${#checks[@]}.log"
  while [ "$(jobs -rp | wc -l)" -ge 3 ]; do wait -n; done
  ( status=0; "$@"; echo $status >"$log.status" ) >"$log" 2>&1 &
  checks+=("$log")
}
start_check check_manager npm
for peer_set in "${peer_sets[@]}"; do start_check check_peers "$peer_set"; done
start_check check_postgres_host
start_check check_manager pnpm
start_check check_client_app
wait
for log in "${checks[@]}"; do
  cat "$log"
  [ "$(cat "$log.status" 2>/dev/null)" = 0 ] || status=1
done

[ $status -eq 0 ] && echo "check-packages: all public packages pass" 
exit $status
