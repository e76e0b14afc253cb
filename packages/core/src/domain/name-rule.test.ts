import { refusal, testDatabases } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPetStore, NewPet, type PetStore } from '../index.js';

// DECISIONS "Hostile clients and overload", Names: controls, separators and format characters that hide or reorder
// text are refused, but for the three that written languages and emoji need; at least one visible character.
const ACCEPTED = [
  '🐈\u200D⬛ Midnight', // zero width joiner: the black cat emoji sequence
  '\u0645\u06CC\u200C\u0634\u0648', // Persian with a zero width non-joiner
  '\u{1F3F4}\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F} Dai', // a subdivision flag: tag characters
  '👩\u200D👩\u200D👧 family',
  'Zoë',
];
const REFUSED = [
  'Rex\u202Egnp.exe', // bidirectional override
  'Rex\u200E', // left-to-right mark
  '\u061CRex', // Arabic letter mark
  'Rex\u2066x\u2069', // isolates
  '\uFEFFRex', // byte order mark
  'Re\u200Bx', // zero width space: Cf, not one of the three
  'Rex\u{E0001}', // language tag: Cf outside the tag characters allowed
  'Rex\u0085',
  'Rex\u2028Max',
  'Rex\u2029',
  '\u200D', // nothing visible
  '\u200C\u200D',
  '\u{E0067}\u{E007F}',
  '\u3164',
];

describe('the name rule', () => {
  it.each(ACCEPTED)('accepts %j', (name) => {
    expect(NewPet.safeParse({ name, categoryId: 1 }).success).toBe(true);
  });

  it.each(REFUSED)('refuses %j', (name) => {
    const result = NewPet.safeParse({ name, categoryId: 1 });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path)).toEqual([['name']]);
  });

  it('is stated in the schema the OpenAPI document is made from', () => {
    const description = String((NewPet.shape.name.meta() as { description?: string }).description);
    for (const stated of ['U+200C', 'U+200D', 'U+E0020-U+E007F', 'visible', 'Cc', 'Cf', 'Zl', 'Zp', 'U+FEFF']) {
      expect(description).toContain(stated);
    }
  });
});

describe.each(testDatabases)('names on $name', ({ open }) => {
  let store: PetStore;
  let close: () => Promise<void>;
  let apiKey: string;
  beforeAll(async () => {
    const opened = await open();
    store = createPetStore({ db: opened.db });
    apiKey = (await store.apiKeys.create({ plan: 'enterprise', limits: { perMinute: 10_000, perDay: 100_000 } })).key;
    close = opened.close;
  });
  afterAll(() => close());

  it('stores the accepted names exactly as sent, never normalised', async () => {
    for (const name of [...ACCEPTED, 'e\u0301', '\u00E9']) {
      const { data } = await store.createPet({ name, categoryId: 1 }, { apiKey });
      expect((await store.getPet({ petId: data.id }, { apiKey })).data.name).toBe(name);
    }
  });

  it('refuses the others with 400 invalid_request naming the field', async () => {
    for (const name of REFUSED) {
      const error = await refusal(store.createPet({ name, categoryId: 1 }, { apiKey }));
      expect({ name, code: error.code, paths: error.details?.map((d) => d.path) }).toEqual({ name, code: 'invalid_request', paths: ['name'] });
    }
  });
});
