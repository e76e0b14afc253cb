// A host script that forgets `close()`: opens the store embedded in the folder given as argument (or memory://)
// through the built package, makes a create and a list, prints `done` and ends its own code there.
import { generateApiKey, openPetStore } from '../../dist/index.js';

const apiKey = generateApiKey();
const { store } = await openPetStore({ dataDir: process.argv[2] ?? 'memory://', apiKeys: [{ key: apiKey, plan: 'pro' }] });
await store.createPet({ name: 'Rex', categoryId: 1 }, { apiKey });
await store.listPets({ limit: 1 }, { apiKey });
process.stdout.write('done\n');
