import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { artifactsModulePath, daemonCodeModulePath, renderArtifactsModule, renderDaemonCodeModule } from '../../src/devnet/compile.ts';

describe('committed devnet artifacts', () => {
  it('match a fresh compile of src/devnet/contracts (run `npm run compile-contracts` when this fails)', () => {
    expect(readFileSync(artifactsModulePath, 'utf8') === renderArtifactsModule()).toBe(true);
  }, 120_000);

  it('match a fresh compile of src/contracts/solidity, the code the daemon places by state override', () => {
    expect(readFileSync(daemonCodeModulePath, 'utf8') === renderDaemonCodeModule()).toBe(true);
  }, 120_000);
});
