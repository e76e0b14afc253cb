#!/usr/bin/env node
// main.js, not the package's index: the index also exports runCommand, which loads the store and the drivers.
import { main } from '../dist/main.js';

process.exitCode = await main(process.argv.slice(2), { env: process.env, out: process.stdout, err: process.stderr });
