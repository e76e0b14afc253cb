#!/usr/bin/env bash
# Checks the public packages as a consumer gets them: packs each one, runs publint and attw (ESM-only profile: the
# packages are ESM) on it, then installs the tarballs into a scratch project outside the repository and
# compiles a small strict TypeScript file against them (skipLibCheck false) and runs it.
# Needs a build (npm run build). Exits non-zero when any step fails, after running all of them.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
packages=(core http trpc rest embed)
work=$(mktemp -d "${TMPDIR:-/tmp}/petstore-packages-XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "check-packages: $*"; status=1; }
version() { node -p "require('$root/node_modules/$1/package.json').version"; }

for name in "${packages[@]}"; do
  tarball=$(npm pack -w "packages/$name" --pack-destination "$work" --silent 2>/dev/null | tail -1)
  [ -f "$work/$tarball" ] || { fail "npm pack failed for @petstore/$name"; continue; }
  if tar -tzf "$work/$tarball" | grep -qE '(\.test\.ts|\.test-d\.ts|/testing/)'; then
    fail "@petstore/$name ships tests or test helpers"
  fi
  npx --no-install publint "packages/$name" --strict || fail "publint failed for @petstore/$name"
  npx --no-install attw "$work/$tarball" --profile esm-only --format table-flipped || fail "attw failed for @petstore/$name"
done

consumer="$work/consumer"
mkdir -p "$consumer/src"
cat > "$consumer/package.json" <<JSON
{ "name": "petstore-consumer", "private": true, "type": "module" }
JSON
# Two compile units, so a failure names its snippet: the in-process and mounting snippets, and the typed tRPC client.
for unit in embed trpc; do
  cat > "$consumer/tsconfig.$unit.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2023", "lib": ["ES2023", "DOM"], "module": "NodeNext", "moduleResolution": "NodeNext",
    "strict": true, "skipLibCheck": false, "noUncheckedIndexedAccess": true, "types": ["node"],
    "outDir": "dist", "rootDir": "src"
  },
  "files": ["src/$unit.ts"]
}
JSON
done
cat > "$consumer/src/embed.ts" <<'TS'
import { createServer } from 'node:http';
import { generateApiKey } from '@petstore/core';
import { createHttpHandler, openPetStore } from '@petstore/embed';

const apiKey = generateApiKey();
const { store, close } = await openPetStore({ dataDir: 'memory://', apiKeys: [{ key: apiKey, plan: 'pro' }] });
const { data: pet } = await store.createPet({ name: 'Rex', categoryId: 1 }, { apiKey });
const { data: pets, meta } = await store.listPets({ limit: 20 }, { apiKey });
console.log('in-process:', pet.id, pets.length, meta.rateLimit?.length);

const server = createServer(createHttpHandler(store));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };
const response = await fetch(`http://127.0.0.1:${port}/v1/pets`, { headers: { authorization: `Bearer ${apiKey}` } });
const docs = await fetch(`http://127.0.0.1:${port}/v1/docs/`);
console.log('mounted:', response.status, 'docs:', docs.status);
server.close();
await close();
if (response.status !== 200 || docs.status !== 200) process.exit(1);
TS
cat > "$consumer/src/trpc.ts" <<'TS'
import { createServer } from 'node:http';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import { generateApiKey } from '@petstore/core';
import { createHttpHandler, openPetStore } from '@petstore/embed';
import type { AppRouter } from '@petstore/trpc';

const apiKey = generateApiKey();
const { store, close } = await openPetStore({ dataDir: 'memory://', apiKeys: [{ key: apiKey, plan: 'pro' }] });
const server = createServer(createHttpHandler(store));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as { port: number };
const petstore = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: `http://127.0.0.1:${port}/trpc`, headers: { authorization: `Bearer ${apiKey}` } })],
});
const created = await petstore.pets.create.mutate({ name: 'Rex', categoryId: 1 });
const page = await petstore.pets.page.query({ limit: 20 });
const name: string = created.name;
console.log('tRPC:', name, page.items.length, page.nextCursor);
server.close();
await close();
TS
(
  cd "$consumer" &&
    npm install --no-audit --no-fund --no-package-lock --silent "$work"/petstore-*.tgz \
      "zod@$(version zod)" "kysely@$(version kysely)" "@trpc/server@$(version @trpc/server)" \
      "@trpc/client@$(version @trpc/client)" "typescript@$(version typescript)" "@types/node@$(version @types/node)"
) || fail "the tarballs did not install into a scratch project"
for unit in embed trpc; do
  if (cd "$consumer" && npx --no-install tsc -p "tsconfig.$unit.json"); then
    (cd "$consumer" && node "dist/$unit.js") || fail "the $unit snippet compiled but did not run"
  else
    fail "the $unit snippet does not compile strictly (skipLibCheck false)"
  fi
done
[ $status -eq 0 ] && echo "check-packages: all public packages pass" 
exit $status
