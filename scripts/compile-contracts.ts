/** Compiles src/devnet/contracts into the committed src/devnet/artifacts/contracts.ts, and src/contracts/solidity into src/contracts/solidity-code.ts. */
import { writeFileSync } from 'node:fs';
import { artifactsModulePath, daemonCodeModulePath, renderArtifactsModule, renderDaemonCodeModule } from '../src/devnet/compile.ts';

const started = performance.now();
writeFileSync(artifactsModulePath, renderArtifactsModule());
writeFileSync(daemonCodeModulePath, renderDaemonCodeModule());
console.log(`wrote ${artifactsModulePath} and ${daemonCodeModulePath} in ${Math.round(performance.now() - started)} ms`);
