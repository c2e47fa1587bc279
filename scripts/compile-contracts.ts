/** Compiles src/devnet/contracts into the committed src/devnet/artifacts/contracts.ts. */
import { writeFileSync } from 'node:fs';
import { artifactsModulePath, renderArtifactsModule } from '../src/devnet/compile.ts';

const started = performance.now();
writeFileSync(artifactsModulePath, renderArtifactsModule());
console.log(`wrote ${artifactsModulePath} in ${Math.round(performance.now() - started)} ms`);
