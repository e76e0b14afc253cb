/** Where one run of the key tool reads its environment and writes what it prints: the process's own, or a test's. */
export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}
