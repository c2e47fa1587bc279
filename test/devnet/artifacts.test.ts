import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { artifactsModulePath, renderArtifactsModule } from '../../src/devnet/compile.ts';

describe('committed devnet artifacts', () => {
  it('match a fresh compile of src/devnet/contracts (run `npm run compile-contracts` when this fails)', () => {
    expect(readFileSync(artifactsModulePath, 'utf8') === renderArtifactsModule()).toBe(true);
  }, 120_000);
});
