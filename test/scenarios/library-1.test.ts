import { describe } from 'vitest';
import { libraryTests } from './libraryHarness';

// The scenario library runs in four files so vitest can spread them over the cores.
describe('the scenario library (shard 2 of 4)', () => libraryTests(1, 4));
