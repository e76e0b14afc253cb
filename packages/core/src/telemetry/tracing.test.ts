import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { testDatabases } from '@petstore/testing';
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetRepository, petQueryVerbs, type PetRepository } from '../storage/pet-repository.js';
import { tracedRepository } from './tracing.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');

// One call of each repository method. A method added to PetRepository fails the type check here until it has one.
const calls: { readonly [Method in keyof PetRepository]: (pets: PetRepository) => Promise<unknown> } = {
  insert: (pets) => pets.insert({ name: 'Traced', categoryId: 1, status: 'available' }),
  findById: (pets) => pets.findById(1),
  list: (pets) => pets.list({ afterId: 0, limit: 5 }),
};

const VERBS: Partial<Record<RootOperationNode['kind'], string>> = {
  SelectQueryNode: 'SELECT',
  InsertQueryNode: 'INSERT',
  UpdateQueryNode: 'UPDATE',
  DeleteQueryNode: 'DELETE',
};

/** Records the verb of every statement run through it, as kysely hands the statement to its plugins. */
function statementVerbs(): KyselyPlugin & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    transformQuery({ node }) {
      const raw = node.kind === 'RawNode' ? /^\s*(\w+)/.exec(node.sqlFragments.join(''))?.[1]?.toUpperCase() : undefined;
      seen.push(raw ?? VERBS[node.kind] ?? node.kind);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
}

describe.each(testDatabases)('the traced pets repository on $name', (database) => {
  let close: () => Promise<void>;
  let pets: PetRepository;
  const statements = statementVerbs();
  beforeAll(async () => {
    const opened = await database.open();
    close = opened.close;
    pets = createPetRepository(opened.db.withPlugin(statements));
  });
  afterAll(() => close());

  it('names a verb for every method the repository has', () => {
    expect(Object.keys(petQueryVerbs).sort()).toEqual(Object.keys(pets).sort());
  });

  it('makes every method a client span named for its verb, and answers what the method answers', async () => {
    const traced = tracedRepository(pets, tracer);
    expect(Object.keys(traced).sort()).toEqual(Object.keys(pets).sort());
    for (const [method, call] of Object.entries(calls)) {
      exporter.reset();
      statements.seen.length = 0;
      const [direct, throughSpan] = [await call(pets), await call(traced)];
      if (method !== 'insert') expect(throughSpan, method).toEqual(direct);
      const verb = petQueryVerbs[method as keyof PetRepository];
      expect(statements.seen, `the statement pets.${method} runs`).toEqual([verb, verb]);
      expect(exporter.getFinishedSpans().map((span) => [span.name, span.kind, span.attributes]), method).toEqual([
        [
          `${verb} pets`,
          SpanKind.CLIENT,
          {
            'db.system.name': 'postgresql',
            'db.collection.name': 'pets',
            'db.operation.name': verb,
            'petstore.db.call': `pets.${method}`,
          },
        ],
      ]);
    }
  });
});
