// A host process for the memory test and its measurement: opens the store on the embedded database (the folder or
// `memory://` given as argument) through the built package, makes creates and lists in-process, and prints its peak
// RSS in MB (`process.resourceUsage().maxRSS`).
import { generateApiKey } from '@petstore/core';
import { openPetStore } from '../../dist/index.js';

const apiKey = generateApiKey();
const { store, close } = await openPetStore({ dataDir: process.argv[2], apiKeys: [{ key: apiKey, plan: 'enterprise', limits: { perMinute: 1e6, perDay: 1e7 } }] });
for (let round = 0; round < 20; round++) {
  const creates = Array.from({ length: 50 }, (_, i) => store.createPet({ name: `Pet ${round}-${i}`, categoryId: 1 }, { apiKey }));
  for (const { data } of await Promise.all(creates)) if (!data.id) throw new Error('a create failed');
  const { data: pets } = await store.listPets({ limit: 100 }, { apiKey });
  if (pets.length === 0) throw new Error('the list is empty');
}
await close();
process.stdout.write(`${Math.round(process.resourceUsage().maxRSS / 1024)}\n`);
