#!/usr/bin/env node
// The service's entry point (`npm start`). Its first statements take SIGTERM and SIGINT, before the service's modules
// load (the store, the drivers, the logger: 1 to 2.5 s on a busy machine, when a static import would leave the signal
// to Node's default, exit 143 and no line): a signal held here is handed to the service as soon as it runs, and ends
// in its clean stop, exit 0 with its lines. Only Node's own bootstrap, before this file runs, is left unguarded.
const held: NodeJS.Signals[] = [];
let handle: (signal: NodeJS.Signals) => void = (signal) => void held.push(signal);
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, (received) => handle(received));

const { runService } = await import('./run-service.js');
await runService((handler) => {
  handle = handler;
  for (const signal of held.splice(0)) handler(signal);
});
