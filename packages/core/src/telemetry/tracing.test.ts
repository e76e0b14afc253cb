import { SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { testDatabases } from '@petstore/testing';
import type { KyselyPlugin, RootOperationNode } from 'kysely';
import { sample } from 'openapi-sampler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PetStoreError } from '../errors/pet-store-error.js';
import type { OperationDefinition } from '../operations/operation.js';
import { operations } from '../operations/operations.js';
import { createOrderRepository, type OrderRepository } from '../storage/order-repository.js';
import { createWebhookRepository, type WebhookRepository } from '../storage/webhook-repository.js';
import { createPetRepository, petQueryVerbs, type PetRepository } from '../storage/pet-repository.js';
import { tracedRepository } from './tracing.js';

const exporter = new InMemorySpanExporter();
const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('test');

type Method = keyof PetRepository;

/**
 * A valid input of an operation, sampled from its input schema (its fields' examples, defaults and enums; optional
 * fields left out unless one is needed), so that each operation of the registry runs here with nothing written for it.
 */
function sampleInput(op: OperationDefinition): unknown {
  const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as Parameters<typeof sample>[0];
  // An input that must change something (`minProperties`, updatePet's) gets its optional fields too.
  const named = schema as { minProperties?: number; $ref?: string; $defs?: Record<string, { minProperties?: number }> };
  const root = named.$ref === undefined ? named : named.$defs?.[named.$ref.split('/').pop()!];
  const skipNonRequired = !((root?.minProperties ?? 0) > 0);
  const input = sample(schema, { skipNonRequired, skipReadOnly: true, quiet: true }, schema);
  const parsed = op.input.safeParse(input);
  if (!parsed.success) {
    throw new Error(`${op.operationId}: its schema refuses ${JSON.stringify(input)}, sampled from it; give the fields an example (.meta({ example }))`);
  }
  return parsed.data;
}

/** The repository, recording the name of each method called on it. */
function recording(pets: PetRepository): { pets: PetRepository; called: Method[] } {
  const called: Method[] = [];
  const methods = Object.keys(pets) as Method[];
  const wrapped = Object.fromEntries(
    methods.map((method) => [method, (...args: unknown[]) => (called.push(method), (pets[method] as (...a: unknown[]) => Promise<unknown>)(...args))]),
  );
  return { pets: wrapped as unknown as PetRepository, called };
}

/**
 * Runs an operation on a repository, as the store does once the call is admitted; a refusal is its answer. The
 * caller's standing (getUsage's) is the quota's and the usage ledger's, not the repository's: asked for here, it is
 * refused, and the operation makes no query of the pets table.
 */
function runOn(op: OperationDefinition, input: unknown, pets: PetRepository, orders: OrderRepository, webhooks: WebhookRepository): Promise<unknown> {
  const standing = () => Promise.reject(new PetStoreError('unavailable', 'No standing in this test.'));
  const env = { pets, orders, webhooks, webhookTargets: { allowPrivate: true }, owner: 'k:1', now: () => new Date(0), meta: {}, cached: <T>(_key: string, load: () => Promise<T>) => load(), standing };
  return op.run(input, env).catch((error: unknown) => {
    if (error instanceof PetStoreError) return error.toBody();
    throw error;
  });
}

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
  // The orders' and webhooks' statements are not the pets repository's: they run beside it, unrecorded.
  let orders: OrderRepository;
  let webhooks: WebhookRepository;
  const statements = statementVerbs();
  beforeAll(async () => {
    const opened = await database.open();
    close = opened.close;
    pets = createPetRepository(opened.db.withPlugin(statements));
    orders = createOrderRepository(opened.db);
    webhooks = createWebhookRepository(opened.db);
  });
  afterAll(() => close());

  it('names a verb for every method the repository has', () => {
    expect(Object.keys(petQueryVerbs).sort()).toEqual(Object.keys(pets).sort());
  });

  const reached = new Set<Method>();

  it.each(Object.values(operations).map((op) => [op.operationId, op] as const))(
    'makes every repository call of %s a client span named for its statement\'s verb, and answers what it answers untraced',
    async (_id, op) => {
      const input = sampleInput(op);
      const direct = recording(pets);
      statements.seen.length = 0;
      const untraced = await runOn(op, input, direct.pets, orders, webhooks);
      expect(statements.seen, `the statements of pets.${direct.called.join(', pets.')}`).toEqual(direct.called.map((method) => petQueryVerbs[method]));

      const through = recording(pets);
      exporter.reset();
      statements.seen.length = 0;
      const traced = await runOn(op, input, tracedRepository(through.pets, tracer), orders, webhooks);
      if (!op.writes) expect(traced).toEqual(untraced);
      expect(statements.seen).toEqual(through.called.map((method) => petQueryVerbs[method]));
      expect(exporter.getFinishedSpans().map((span) => [span.name, span.kind, span.attributes])).toEqual(
        through.called.map((method) => [
          `${petQueryVerbs[method]} pets`,
          SpanKind.CLIENT,
          {
            'db.system.name': 'postgresql',
            'db.collection.name': 'pets',
            'db.operation.name': petQueryVerbs[method],
            'petstore.db.call': `pets.${method}`,
          },
        ]),
      );
      for (const method of through.called) reached.add(method);
    },
  );

  it('has checked every method of the repository through some operation', () => {
    const traced = tracedRepository(pets, tracer);
    expect(Object.keys(traced).sort()).toEqual(Object.keys(pets).sort());
    expect([...reached].sort(), 'a method no operation calls (used elsewhere? give it a test of its span)').toEqual(Object.keys(pets).sort());
  });
});
