/** Says once per run what a run without DATABASE_URL leaves out, and how to include it. */
export default function announceSkippedDatabases(): void {
  if (process.env.DATABASE_URL) return;
  console.log(
    'DATABASE_URL is unset: skipped every PostgreSQL run (storage, quota, idempotency, embedding, CLI and process tests ran on PGlite only); run them with DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/petstore npm test (bash .ci/start-postgres.sh starts that server on Debian).',
  );
}
