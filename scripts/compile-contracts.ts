/**
 * Compiles src/devnet/contracts into the committed src/devnet/artifacts/contracts.ts, and src/contracts/solidity into
 * src/contracts/solidity-code.ts. With --check, writes nothing: compiles and compares the whole text of both with
 * what is committed, and exits 1 naming the one that differs (the suite compares the artifacts' digests only).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { artifactsModulePath, daemonCodeModulePath, renderArtifactsModule, renderDaemonCodeModule } from '../src/devnet/compile.ts';

const { values } = parseArgs({ options: { check: { type: 'boolean' } } });
const started = performance.now();
const modules = [
  [artifactsModulePath, renderArtifactsModule()],
  [daemonCodeModulePath, renderDaemonCodeModule()],
] as const;
if (values.check) {
  const stale = modules.filter(([path, text]) => readFileSync(path, 'utf8') !== text).map(([path]) => path);
  console.log(
    stale.length === 0
      ? `both modules match a fresh compile (${Math.round(performance.now() - started)} ms)`
      : `stale: ${stale.join(', ')}: run npm run compile-contracts`,
  );
  process.exitCode = stale.length === 0 ? 0 : 1;
} else {
  for (const [path, text] of modules) writeFileSync(path, text);
  console.log(`wrote ${artifactsModulePath} and ${daemonCodeModulePath} in ${Math.round(performance.now() - started)} ms`);
}
