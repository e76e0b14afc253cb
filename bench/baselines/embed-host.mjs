// A host that embeds the packages in its own node:http server, as the embed README shows, for the telemetry rows:
// the same handler with no telemetry code at all (TELEMETRY=off: tracerProvider false), with OpenTelemetry's API and
// no SDK registered (the default), and with the host's own pino logger writing to LOG_FILE (LOGGER=pino).
// DATA_DIR is this process's copy of the seeded embedded data; PORT, HOST say where to listen.
import { createServer } from 'node:http';
import { createHttpHandler, openPetStore } from '@petstore/embed';
import { pino } from 'pino';

const { DATA_DIR, API_KEY, TELEMETRY = 'api', LOGGER = 'none', LOG_FILE } = process.env;
const tracerProvider = TELEMETRY === 'off' ? false : undefined;
const service = await openPetStore({
  dataDir: DATA_DIR,
  rateLimitStore: 'memory',
  apiKeys: [{ key: API_KEY, plan: 'enterprise', limits: { perMinute: 2_000_000_000, perDay: 2_000_000_000 } }],
  tracerProvider,
});
// Written in pieces of 12 KiB (sonic-boom allows less than its 16 KiB maxWrite) (sonic-boom's minLength), as a busy host would: one write per line costs a syscall each.
const logger = LOGGER === 'pino' ? pino(pino.destination({ dest: LOG_FILE, sync: false, minLength: 12288 })) : undefined;
const server = createServer({ keepAliveTimeout: 5_000 }, createHttpHandler(service.store, { tracerProvider, logger }));
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1', () => console.log('listening'));
process.on('SIGTERM', () => {
  server.close(() => service.close().then(() => process.exit(0)));
  server.closeIdleConnections();
});
