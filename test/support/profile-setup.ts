// Every test file's profile (test/support/profile.ts), handed to the reporters in the file's meta.
import { afterAll } from 'vitest';
import { startFileProfile } from './profile.ts';

const finish = startFileProfile();

// vitest reads the hook's first parameter as the fixtures it asks for: none.
// biome-ignore lint/correctness/noEmptyPattern: an object pattern is what vitest requires there
afterAll(({}, suite) => {
  (suite.meta as { profile?: unknown }).profile = finish();
});
