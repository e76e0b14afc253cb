import { z } from 'zod';
import { textProblem } from './visible-text.js';

/** The largest integer JSON clients read exactly (2^53-1): the bound of every id. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

/** The rule of a name in words, for the OpenAPI document (a `pattern` has no flag for Unicode properties). */
const NAME_RULE =
  "The animal's name: 1 to 255 characters, at least one of them visible; no control characters (Unicode Cc), line " +
  'or paragraph separators (Zl, Zp) or format characters (Cf: bidirectional controls, U+FEFF, U+200B), except ' +
  'U+200C ZERO WIDTH NON-JOINER, U+200D ZERO WIDTH JOINER and the tag characters U+E0020-U+E007F. Stored exactly as sent.';

/** Availability status of an animal. */
export const PetStatus = z.enum(['available', 'pending', 'sold']).meta({
  id: 'PetStatus',
  description: 'Availability status.',
});
export type PetStatus = z.infer<typeof PetStatus>;

/**
 * An integer from `min` to `max`, with one message per problem: not an integer, or out of range. `int()` stops at its
 * own failure (`abort`), so a value past 2^53-1 (which `int()` refuses itself) is not reported again by `max`; and its
 * message is chosen by issue, since a message given as the schema's `error` would replace the range messages too.
 */
function integer(min: number, max: number) {
  const message = (issue: { code?: string }) =>
    issue.code === 'invalid_type'
      ? 'must be an integer'
      : issue.code === 'too_big'
        ? `must be at most ${max}`
        : issue.code === 'too_small'
          ? `must be at least ${min}`
          : undefined;
  return z.int({ error: message, abort: true }).min(min, { error: message }).max(max, { error: message });
}

const id = (description: string) => integer(1, MAX_ID).meta({ description, format: 'int64', example: 1 });

/**
 * An id field (1 to 2^53-1, one message per problem), with its description: every record's ids are these.
 * @example z.strictObject({ orderId: idField('The identifier of the order.') })
 */
export const idField = id;

const nameProblem = (value: string) => textProblem(value, 255);

const name = z
  .string()
  .check((ctx) => {
    const message = nameProblem(ctx.value);
    if (message) ctx.issues.push({ code: 'custom', message, input: ctx.value });
  })
  .meta({ description: NAME_RULE, minLength: 1, maxLength: 255, example: 'Rex' });

/** The request body of `createPet`: strict types, unknown fields rejected, `status` defaulting to `available`. */
export const NewPet = z
  .strictObject({
    name,
    categoryId: id('Identifier of the category the animal belongs to.'),
    status: PetStatus.default('available'),
  })
  .meta({ id: 'NewPet' });
export type NewPet = z.input<typeof NewPet>;

/** An animal as returned. */
export const Pet = z
  .strictObject({
    id: id('Unique identifier assigned by the service on creation.'),
    // Bounds for the document only (outputs are not checked against them): names are stored as NewPet took them.
    name: z.string().meta({ description: "The animal's name.", minLength: 1, maxLength: 255, example: 'Rex' }),
    categoryId: id('Identifier of the category the animal belongs to.'),
    status: PetStatus,
  })
  .meta({ id: 'Pet' });
export type Pet = z.infer<typeof Pet>;

/** The most animals one page holds: the largest `limit`. */
const MAX_PAGE = 100;

/** The body of the list operation: an array of Pet (`maxItems` documents the page bound; outputs are not checked). */
export const Pets = z.array(Pet).meta({ id: 'Pets', maxItems: MAX_PAGE });
export type Pets = z.infer<typeof Pets>;

const limit = integer(1, MAX_PAGE).meta({ description: 'Maximum number of animals returned.', format: 'int32' });

const cursor = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'Opaque cursor from the `Link: rel="next"` header of the previous page.' });

/**
 * A page's `limit` (1 to 100) and `cursor` fields, for a list of other records than animals.
 * @example z.strictObject({ limit: pageFields('orders').limit.default(20) })
 */
export const pageFields = (records: string) => ({
  limit: integer(1, MAX_PAGE).meta({ description: `Maximum number of ${records} returned.`, format: 'int32' }),
  cursor: cursor.optional(),
});

const petId = id('The identifier of the animal.');

/** Input of `listPets` as typed callers (tRPC, in-process) send it. */
export const ListPetsInput = z.strictObject({
  limit: limit.default(20),
  status: PetStatus.optional().meta({ description: 'Return only animals with this status.' }),
  cursor: cursor.optional(),
});
export type ListPetsInput = z.input<typeof ListPetsInput>;

/** Input of `getPet` as typed callers send it. */
export const GetPetInput = z.strictObject({ petId });
export type GetPetInput = z.input<typeof GetPetInput>;
