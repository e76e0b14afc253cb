import { setFlagsFromString } from 'node:v8';

/**
 * Keeps the embedded database's WebAssembly on V8's baseline compiler (Liftoff). PGlite is PostgreSQL compiled to
 * WebAssembly, and V8 recompiles each of its hot functions with TurboFan, whose compilation memory is what lifts
 * the service's peak: measured on 2 cores, the peak RSS at start-up goes from 258 to 172 MB and under a stream of
 * creates from 276–288 to 207–211 MB, for 7% fewer creates per second (2.33k against 2.17k). Must run before the
 * database opens. Left alone when node was started with a `liftoff` flag of its own (`--no-liftoff-only` to let V8
 * optimise).
 * @example if (!config.databaseUrl) keepWasmOnBaselineCompiler()
 */
export function keepWasmOnBaselineCompiler(): void {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => arg.includes('liftoff'));
  if (!chosen) setFlagsFromString('--liftoff-only');
}
