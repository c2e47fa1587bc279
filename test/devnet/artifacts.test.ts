/**
 * The committed devnet artifacts are what `npm run compile-contracts` makes of the tree: the module carries the digest
 * of everything it was made from (the compilers' versions and settings, our Solidity, the versions of the packages
 * it imports or copies) and the digest of its own text, and both must be the tree's now (src/devnet/artifact-inputs.ts).
 * Compiling them takes 17 s of a core; `npm run compile-contracts -- --check` does, and compares the whole text. The
 * daemon's own contract compiles in under a second: it is compiled here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { artifactBodyDigest, artifactInputsDigest, artifactsModulePath, bodyLine, inputsLine } from '../../src/devnet/artifact-inputs.ts';

describe('committed devnet artifacts', () => {
  it('were made from the tree as it is (run `npm run compile-contracts` when this fails), and not edited since', () => {
    const text = readFileSync(artifactsModulePath, 'utf8');
    const header = text.slice(0, text.indexOf('\n\n')).split('\n');
    expect(header).toContain(inputsLine(artifactInputsDigest()));
    expect(header).toContain(bodyLine(artifactBodyDigest(text)));
  });

  it('match a fresh compile of src/contracts/solidity, the code the daemon places by state override', async () => {
    const { daemonCodeModulePath, renderDaemonCodeModule } = await import('../../src/devnet/compile.ts');
    expect(readFileSync(daemonCodeModulePath, 'utf8') === renderDaemonCodeModule()).toBe(true);
  }, 120_000);
});
