#!/usr/bin/env node
import { main } from './cli-main.js';

// Exits when the command is done: a database pool's idle connections must not keep the tool waiting.
process.exit(await main(process.argv.slice(2), { env: process.env, out: process.stdout, err: process.stderr }));
