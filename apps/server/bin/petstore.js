#!/usr/bin/env node
// The `petstore` key tool. This launcher is committed (mode 755) so npm can link the bin on the first
// `npm install`, before the build has made dist/cli.js; it loads the built tool when it runs.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('petstore: the tool is not built yet (apps/server/dist/cli.js is missing). Run "npm run build" first.\n');
  process.exit(1);
}
await import(cli.href);
